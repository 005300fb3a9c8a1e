import type { ClusterScenario } from '../experiment/cluster-scenario.ts';
import { longLived } from './long-lived.ts';
import { sidecarDrain } from './sidecar-drain.ts';
import { workloadRollout } from './workload-rollout.ts';
import { ztunnelUpgrade } from './ztunnel-upgrade.ts';

export const CLUSTER_SCENARIOS: Record<string, ClusterScenario> = {
  'ztunnel-upgrade': ztunnelUpgrade,
  'workload-rollout': workloadRollout,
  'long-lived': longLived,
  'sidecar-drain': sidecarDrain,
};

/**
 * What --scenario takes. A scenario is a cluster experiment (topology, load, fault, verdict: the
 * four above). Three more names run something else through the same flag: drain-strategies is the
 * seed suite's E5 entries (suites/seeds.yaml), calibrate and load-smoke are checks of the harness's
 * own load path without a cluster (harness/checks/).
 */
export const SCENARIO_NAMES = [
  'ztunnel-upgrade',
  'workload-rollout',
  'long-lived',
  'sidecar-drain',
  'drain-strategies',
  'calibrate',
  'load-smoke',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
