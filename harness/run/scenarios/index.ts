import { backendsWithCapabilities } from '../../../clusters/registry.ts';
import type { BackendName } from '../../../clusters/registry.ts';
import type { ClusterScenario } from '../cluster-scenario.ts';
import { cniMissing, cniMissingDuringRollout } from './cni-missing.ts';
import { cniRestartDuringRollout } from './cni-restart-during-rollout.ts';
import { gatewayRollout } from './gateway-rollout.ts';
import { istioServiceRestart, istioZtunnelRestart } from './istio-restart-tests.ts';
import { longLived } from './long-lived.ts';
import { sidecarDrain } from './sidecar-drain.ts';
import { workloadRollout } from './workload-rollout.ts';
import { ztunnelUpgrade } from './ztunnel-upgrade.ts';
import { ztunnelRestartDuringRollout } from './ztunnel-restart-during-rollout.ts';

export const CLUSTER_SCENARIOS: Record<string, ClusterScenario> = {
  'ztunnel-upgrade': ztunnelUpgrade,
  'workload-rollout': workloadRollout,
  'long-lived': longLived,
  'sidecar-drain': sidecarDrain,
  'istio-service-restart': istioServiceRestart,
  'istio-ztunnel-restart': istioZtunnelRestart,
  'gateway-rollout': gatewayRollout,
  'ztunnel-restart-during-rollout': ztunnelRestartDuringRollout,
  'cni-restart-during-rollout': cniRestartDuringRollout,
  'cni-missing': cniMissing,
  'cni-missing-during-rollout': cniMissingDuringRollout,
};

/** What --scenario takes: the cluster scenarios, by name. */
export const SCENARIO_NAMES: readonly string[] = Object.keys(CLUSTER_SCENARIOS);

/** The backends that run a scenario (each has every capability it requires), the default first. */
export function backendsRunning(scenario: ClusterScenario): BackendName[] {
  return backendsWithCapabilities((scenario.requires ?? []).map((r) => r.capability));
}
