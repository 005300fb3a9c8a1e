// Where a local cluster's parts are: nodes, the gateway's address, the control plane, Services and
// pods (with their containers' PIDs, for the CPU monitor).
import type { ClusterAddresses, PodInfo } from '../backend.ts';
import { GATEWAY_PORT } from '../manifests/index.ts';
import { isActive } from './cluster-state.ts';
import type { LocalCluster } from './up/local-cluster.ts';

function podInfo(cluster: LocalCluster): PodInfo[] {
  return [...cluster.state.pods.values()].map((p) => ({
    name: p.name,
    namespace: p.namespace,
    node: p.nodeName,
    podIp: p.podIp,
    appIp: p.appIp,
    isMeshed: p.isMeshed,
    isReady: p.isReady,
    isDeleting: p.deletionAtMs !== undefined,
    phase: p.phase,
    owner: `${p.owner.kind.toLowerCase()}/${p.owner.name}`,
    pids: cluster.parts.kubelets.flatMap((k) => k.containerPids(p.uid)),
  }));
}

function ingressAddress(cluster: LocalCluster): { ingress?: string } {
  const gateway = [...cluster.state.pods.values()].find(
    (p) => p.owner.name === 'istio-ingressgateway' && p.isReady && isActive(p),
  );
  return gateway ? { ingress: `${gateway.podIp}:${String(GATEWAY_PORT)}` } : {};
}

export function localAddresses(cluster: LocalCluster): ClusterAddresses {
  const controlPlane = cluster.parts.controlPlane;
  return {
    nodes: [...cluster.nodes],
    ...ingressAddress(cluster),
    controlPlane: {
      xds: controlPlane?.xdsAddress ?? '',
      ca: controlPlane?.caUrl ?? '',
      envoyXds: controlPlane?.envoyXdsAddress ?? '',
    },
    services: [...cluster.state.services.values()].map(({ object, vip }) => ({
      namespace: object.metadata?.namespace ?? 'default',
      name: object.metadata?.name ?? '',
      vip,
      ports: (object.spec?.ports ?? []).map((p) => ({
        port: p.port,
        targetPort: Number(p.targetPort ?? p.port),
      })),
    })),
    pods: podInfo(cluster),
  };
}
