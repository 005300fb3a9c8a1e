import type { ClusterSource } from '../../mesh/control-plane/index.ts';
import type { ClusterState } from './cluster-state.ts';
import { isTerminal } from './cluster-state.ts';

/** The control plane's view of the local state (what its pod and service informers would hold). */
export function createStateSource(state: ClusterState): ClusterSource {
  return {
    pods: () =>
      [...state.pods.values()].map((p) => ({
        uid: p.uid,
        name: p.name,
        namespace: p.namespace,
        nodeName: p.nodeName,
        podIp: p.podIp,
        serviceAccount: p.serviceAccount,
        labels: p.labels,
        isMeshed: p.isMeshed,
        isReady: p.isReady,
        isDeleting: p.deletionAtMs !== undefined,
        isTerminal: isTerminal(p),
      })),
    services: () =>
      [...state.services.values()].map(({ object, vip }) => ({
        namespace: object.metadata?.namespace ?? 'default',
        name: object.metadata?.name ?? '',
        vip,
        selector: object.spec?.selector ?? {},
        ports: (object.spec?.ports ?? []).map((p) => ({
          port: p.port,
          targetPort: Number(p.targetPort ?? p.port),
        })),
      })),
    // The local cluster has no API server and so no Istio CRDs: the gateway keeps the one route of
    // its node metadata (mesh/xds/route-policy.ts).
    routing: () => ({ gateways: [], virtualServices: [] }),
    onChange: (listener) => state.watch(listener),
  };
}
