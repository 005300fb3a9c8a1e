import type { MitigationArms } from './arms.ts';
import type { OptionParams } from './experiment-options.ts';

/**
 * Everything a cluster experiment run depends on; every field goes into the summary row. Derived
 * from the option table: one field per option that sets a parameter (experiment-options.ts, named
 * by the table's keys and typed by each entry's parser or toParam), and the arms (arms.ts).
 */
export type ExperimentParams = OptionParams & { arms: MitigationArms };

/** Parameters a scenario sets differently from the CLI's defaults (a user's flag still wins). */
export type ScenarioDefaults = Partial<
  Pick<
    ExperimentParams,
    | 'qps'
    | 'connections'
    | 'durationS'
    | 'timeoutS'
    | 'path'
    | 'graceS'
    | 'replicas'
    | 'restartAtS'
    | 'gatewayMode'
  >
>;
