import type { ClusterScenario } from '../cluster-scenario.ts';
import { ZTUNNEL_DAEMONSET, NEEDS_IN_POD_ZTUNNEL, scenarioManifests } from '../scenario-manifests.ts';

/**
 * E1 (seeds 001, 000): the ASM test. fortio load through the ingress gateway to ambient httpbin;
 * the ztunnel DaemonSet is restarted mid-run. The gateway reaches the pods over HBONE, as every Istio
 * >= 1.25 gateway does with ambient on (istiod's PILOT_ENABLE_SENDING_HBONE defaults to true, and
 * ASM 1.25 is Istio 1.25); `--gateway-mode plain` is the arm where it stays outside the mesh
 * (plaintext to pod IP:port, captured by the destination's ztunnel). The document reports
 * single-digit 503 counts, so more than 9 failed requests fails the verdict.
 */
export const ztunnelUpgrade: ClusterScenario = {
  name: 'ztunnel-upgrade',
  // The gateway's HBONE reaches the binary's in-pod :15008 (plain: its :15006, by the in-pod rules).
  ztunnelImpls: ['istio-shared'],
  summary: 'ztunnel DaemonSet rollout restart under load through the ingress gateway (ASM, seed 001)',
  source: 'E1, seed 001 (ASM fortio tests)',
  manifests: (p) => scenarioManifests(p),
  requires: [{ capability: 'inPodZtunnel', why: NEEDS_IN_POD_ZTUNNEL }],
  fault: {
    kind: 'rollout-restart',
    target: ZTUNNEL_DAEMONSET,
  },
  defaultMaxFailed: 9,
  defaults: { gatewayMode: 'hbone' },
};
