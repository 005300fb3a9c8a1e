import type { ClusterScenario } from '../cluster-scenario.ts';
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

/** What --scenario takes: the cluster scenarios, by name. */
export const SCENARIO_NAMES: readonly string[] = Object.keys(CLUSTER_SCENARIOS);
