import type { ClusterScenario } from '../cluster-scenario.ts';
import {
  HTTPBIN_DEPLOYMENT,
  NEEDS_IN_POD_ZTUNNEL,
  ZTUNNEL_DAEMONSET,
  scenarioManifests,
} from '../scenario-manifests.ts';

/**
 * E1 x E2: ztunnel's DaemonSet and httpbin's Deployment rollout-restarted at the same moment under
 * E2's load through the mesh-aware gateway. Pods are deleted and created while the new ztunnel
 * connects to istio-cni and istiod and the old one drains: the case of istio/ztunnel#1674 (a CNI/ZDS
 * deadlock when a pod is deleted while ztunnel reconnects; fixed by istio/istio#60786). Neither
 * document judges the pair, so the verdict keeps E1's (at most 9 failed): a combination that costs
 * more than E1 alone shows as a fail; the rollout not finishing fails the run. The rate is E2's
 * (50 QPS), so each failure can be placed against both rollouts' events; the duration E1's (60 s),
 * so the old ztunnel's drain deadline (SIGTERM + grace - 5 s) falls inside the load.
 */
export const ztunnelRestartDuringRollout: ClusterScenario = {
  name: 'ztunnel-restart-during-rollout',
  ztunnelImpls: ['istio-shared'],
  summary:
    "ztunnel's DaemonSet and httpbin's Deployment rollout-restarted together under E2's load (E1 x E2)",
  source: 'E1 x E2, seeds 001 and 002; istio/ztunnel#1674, istio/istio#60786',
  manifests: (p) => scenarioManifests(p),
  requires: [{ capability: 'inPodZtunnel', why: NEEDS_IN_POD_ZTUNNEL }],
  fault: { kind: 'rollout-restart', target: ZTUNNEL_DAEMONSET, alongside: HTTPBIN_DEPLOYMENT },
  defaultMaxFailed: 9,
  defaults: { qps: 50, gatewayMode: 'hbone' },
};
