import type { ClusterScenario } from '../experiment/cluster-scenario.ts';
import {
  ZTUNNEL_DAEMONSET,
  NEEDS_IN_POD_CAPTURE,
  scenarioManifests,
} from '../experiment/scenario-manifests.ts';

/**
 * E1 (seeds 001, 000): the ASM test. The gateway is outside the mesh (plain TCP to pod IP:port,
 * captured by the destination ztunnel); fortio-like load; the ztunnel DaemonSet is restarted mid-run.
 * The document reports single-digit 503 counts, so more than 9 failed requests fails the verdict.
 */
export const ztunnelUpgrade: ClusterScenario = {
  name: 'ztunnel-upgrade',
  summary: 'ztunnel DaemonSet rollout restart under load through a gateway outside the mesh (ASM, seed 001)',
  source: 'E1, seed 001 (ASM fortio tests)',
  manifests: (p) => scenarioManifests(p, { gatewayMode: 'plain' }),
  notOnKind: NEEDS_IN_POD_CAPTURE,
  fault: {
    kind: 'rollout-restart',
    target: ZTUNNEL_DAEMONSET,
  },
  defaultMaxFailed: 9,
};
