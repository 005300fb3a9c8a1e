import type { MitigationArms } from './arms.ts';
import type {
  FaultParams,
  LoadParams,
  OptionParams,
  TopologyParams,
  VerdictParams,
} from './experiment-options.ts';

/**
 * Everything a cluster experiment run depends on; every field goes into the summary row. Derived
 * from the option table: one field per option that sets a parameter (experiment-options.ts, named
 * by the table's keys and typed by each entry's parser or toParam), by group, and the arms (arms.ts).
 */
export type ExperimentParams = TopologyParams &
  LoadParams &
  FaultParams &
  VerdictParams & { arms: MitigationArms };

/** A parameter entry of the table outside every group: the run would never see it. */
type Ungrouped = Exclude<
  keyof OptionParams,
  keyof (TopologyParams & LoadParams & FaultParams & VerdictParams)
>;
/** Compiles only while every parameter entry is in a group. */
export const EVERY_PARAMETER_GROUPED: [Ungrouped] extends [never] ? true : Ungrouped = true;

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
