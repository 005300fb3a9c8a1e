import { ISTIO_CNI_DAEMONSET } from '../../../clusters/manifests/istio-cni-daemonset.ts';
import type { ClusterScenario } from '../cluster-scenario.ts';
import { HTTPBIN_DEPLOYMENT, NEEDS_IN_POD_ZTUNNEL, scenarioManifests } from '../scenario-manifests.ts';

/**
 * istio-cni's DaemonSet rollout-restarted while httpbin rolls out, under E2's load: pods start while
 * the node agent that enrols them restarts, and ztunnel's ZDS connection drops and comes back with a
 * new snapshot. Istio's TestTrafficWithCNIUpgrade (tests/integration/ambient/cniupgrade/
 * main_test.go) sends traffic across a CNI upgrade and expects it to succeed. The verdict is E2's
 * (any failure); the failures beyond E2's own are the CNI restart's.
 */
export const cniRestartDuringRollout: ClusterScenario = {
  name: 'cni-restart-during-rollout',
  ztunnelImpls: ['istio-shared'],
  summary: "istio-cni's DaemonSet rollout-restarted while httpbin's Deployment rolls, under E2's load",
  source: 'istio/istio tests/integration/ambient/cniupgrade/main_test.go TestTrafficWithCNIUpgrade',
  manifests: (p) => scenarioManifests(p),
  requires: [{ capability: 'inPodZtunnel', why: NEEDS_IN_POD_ZTUNNEL }, { capability: 'cniDaemonSet' }],
  fault: { kind: 'rollout-restart', target: ISTIO_CNI_DAEMONSET, alongside: HTTPBIN_DEPLOYMENT },
  defaultMaxFailed: 0,
  defaults: { qps: 50, durationS: 30, gatewayMode: 'hbone' },
};
