// What a run gives the summary row besides its parameters and its tally: who ran it, with what, and
// what the harness saw around the load.
import type { BackendDescription } from '../../../clusters/backend-columns.ts';
import type { CpuUsage } from '../../load/index.ts';
import type { CpuGroupFigures } from '../../observe/cpu-monitor.ts';
import type { BurstExplanation } from '../../explain/explain-bursts.ts';
import type { DeadlineAccount } from '../../explain/deadline-accounting.ts';
import type { DrainOptionMetrics } from '../../explain/drain-option-metrics.ts';

import type { RemovalLag } from '../../explain/removal-lag.ts';
export interface RunFacts {
  runId: string;
  startedAtWallMs: number;
  gitSha: string;
  /** The generator that ran (fortio or k6) and its version. */
  generator: { kind: string; version: string };
  /** The gateway's and the sidecar's Envoy (`envoy --version`; kind: the image's tag). */
  envoyVersion: string;
  droppedIterations: number;
  /** fortio's retried calls by why the first attempt failed (`timeout:19`), '' when none. */
  generatorRetried?: string;
  /** Requests the generator itself counted (k6's http_reqs, fortio's calls). */
  generatorRequests: number;
  generatorCpu?: CpuUsage;
  /** The gateway's access log over the run (local backend): requests, and failures it answered or cut. */
  gatewayLog?: { requests: number; failures: number; warmupFailures?: number };
  /** E5's figures, when a meshed client ran (drain-option-metrics.ts). */
  drainOptions?: DrainOptionMetrics;
  /** Every drain deadline (run clock) and the bursts' explanations (local backend). */
  deadlines?: {
    atMs: readonly number[];
    explanations: readonly BurstExplanation[];
    /** Every deadline inside the load, accounted for (deadline-accounting.ts). */
    accounts?: readonly DeadlineAccount[];
  };
  /** Per component group (harness, gateway, ...), from the CPU monitor; absent on an early abort. */
  componentCpu?: ReadonlyMap<string, CpuGroupFigures>;
  backend: BackendDescription;
  rollout?: { startedAtMs: number; statusCompleteAtMs?: number; oldPodsGoneAtMs?: number };
  /** Each terminating workload pod's app exit to ztunnel's removal of it (removal-lag.ts). */
  removalLags?: readonly RemovalLag[];
  loadStartMs: number;
  verdict: 'pass' | 'fail' | 'aborted';
  reason: string;
}

/** Facts of a run that has not happened: only to learn the summary row's columns beforehand. */
export const EMPTY_FACTS: RunFacts = {
  runId: '',
  startedAtWallMs: 0,
  gitSha: '',
  generator: { kind: '', version: '' },
  envoyVersion: '',
  droppedIterations: 0,
  generatorRequests: 0,
  backend: {},
  loadStartMs: 0,
  verdict: 'aborted',
  reason: '',
};
