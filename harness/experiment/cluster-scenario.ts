import type { WorkloadRef } from '../../clusters/backend.ts';
import type { ClusterObject } from '../../clusters/manifests/index.ts';
import type { ExperimentParams } from './experiment-params.ts';

/** A scenario = topology (manifests) + load (params) + fault schedule (what restarts) + verdict rule. */
export interface ClusterScenario {
  name: string;
  summary: string;
  manifests(params: ExperimentParams): ClusterObject[];
  /** What `rollout restart` hits at --restart-at. */
  restartTarget: WorkloadRef;
  /** Default for --max-failed: what the source document says a good run looks like. */
  defaultMaxFailed: number;
}
