// How ztunnel's DaemonSet replaces its pods on an upgrade (--ztunnel-update). Operators do it three
// ways: the chart's default surge (a new pod beside the old one, the old one deleted once the new is
// ready: istio/istio manifests/charts/ztunnel/values.yaml `updateStrategy`, maxSurge 1,
// maxUnavailable 0), the DaemonSet's own default (the old pod deleted first, the new one created
// after: maxSurge 0, maxUnavailable 1), or every pod deleted at once (Istio's CRL test restarts
// ztunnel that way, tests/integration/ambient/crl/crl_test.go restartZtunnelPodAndWait; here the
// DaemonSet is OnDelete so the pods it recreates carry the new template). A fourth, drain, is what
// sail-operator#1552 recommends against the resets of an in-place upgrade: each node cordoned and its
// workloads evicted before its ztunnel pod is deleted (OnDelete; clusters/kind/ops/drain-nodes.ts).
import type { V1DaemonSetUpdateStrategy } from '@kubernetes/client-node';

export const ZTUNNEL_UPDATES = ['surge', 'unavailable', 'delete-all', 'drain'] as const;
export type ZtunnelUpdate = (typeof ZTUNNEL_UPDATES)[number];

export function ztunnelUpdateStrategy(update: ZtunnelUpdate): V1DaemonSetUpdateStrategy {
  if (update === 'surge') return { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
  if (update === 'unavailable')
    return { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
  return { type: 'OnDelete' };
}
