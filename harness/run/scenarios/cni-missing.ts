import { ISTIO_CNI_DAEMONSET } from '../../../clusters/manifests/istio-cni-daemonset.ts';
import type { ClusterScenario } from '../cluster-scenario.ts';
import { HTTPBIN_DEPLOYMENT, NEEDS_IN_POD_ZTUNNEL, scenarioManifests } from '../scenario-manifests.ts';

const SOURCE =
  'istio/istio tests/integration/ambient/cni/main_test.go TestTrafficWithEstablishedPodsIfCNIMissing';

/** What the two share: kind's istio-cni DaemonSet, E2's load through the gateway, every call to pass. */
const CNI_MISSING = {
  ztunnelImpls: ['istio-shared'],
  manifests: (p) => scenarioManifests(p),
  requires: [{ capability: 'inPodZtunnel', why: NEEDS_IN_POD_ZTUNNEL }, { capability: 'cniDaemonSet' }],
  defaultMaxFailed: 0,
  defaults: { qps: 50, durationS: 30, gatewayMode: 'hbone' },
} satisfies Partial<ClusterScenario>;

/**
 * istio-cni's DaemonSet deleted under E2's load: the pods it enrolled stay served by ztunnel, which
 * holds their network namespaces, and traffic to them must not fail. Istio's
 * TestTrafficWithEstablishedPodsIfCNIMissing deletes just the DaemonSet and runs its traffic tests
 * against the established pods; its criterion is every call succeeding.
 */
export const cniMissing: ClusterScenario = {
  ...CNI_MISSING,
  name: 'cni-missing',
  summary: "istio-cni's DaemonSet deleted under E2's load; the pods it enrolled keep serving",
  source: SOURCE,
  fault: { kind: 'delete', target: ISTIO_CNI_DAEMONSET },
};

/**
 * The same deletion with httpbin's Deployment rolled at once, so its new pods start while no node
 * agent can enrol them: the case Istio's test leaves out ("new pods would be missed"). What a new
 * pod does then is the CNI plugin's answer when its agent is away (the finding says which).
 */
export const cniMissingDuringRollout: ClusterScenario = {
  ...CNI_MISSING,
  name: 'cni-missing-during-rollout',
  summary:
    "istio-cni's DaemonSet deleted while httpbin's Deployment rolls, under E2's load: pods start with no node agent",
  source: `${SOURCE}, with pods starting`,
  fault: { kind: 'delete', target: ISTIO_CNI_DAEMONSET, alongside: HTTPBIN_DEPLOYMENT },
};
