import type { TimingModel } from '../../clusters/local/index.ts';
import type { MitigationArms } from './mitigation-arms.ts';

/** Everything a cluster experiment run depends on; every field goes into the summary row. */
export interface ExperimentParams {
  scenario: string;
  backend: 'local' | 'kind';
  mesh: 'ambient' | 'off';
  graceS: number;
  qps: number;
  connections: number;
  durationS: number;
  timeoutS: number;
  path: string;
  /** Seconds after load start; undefined = load only (baselines, benchmarks). */
  restartAtS: number | undefined;
  replicas: number;
  /** A run fails its verdict above this many failed requests. */
  maxFailed: number;
  timing: Partial<TimingModel>;
  arms: MitigationArms;
}
