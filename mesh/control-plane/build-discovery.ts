import type { DiscoverySnapshot } from '../discovery/index.ts';
import { serviceKey } from '../discovery/index.ts';
import type { ClusterSource, PodView, ServiceView } from './cluster-source.ts';

const matches = (pod: PodView, service: ServiceView): boolean =>
  pod.namespace === service.namespace &&
  Object.keys(service.selector).length > 0 &&
  Object.entries(service.selector).every(([k, v]) => pod.labels[k] === v);

/**
 * istiod's workload and service build for WDS (pilot/pkg/serviceregistry/kube/controller/ambient):
 * a pod is HEALTHY only while Ready and without a deletionTimestamp, UNHEALTHY otherwise, and gone
 * once terminal (or deleted). Pods outside the mesh are sent too, with protocol TCP. Host-network
 * pods (ztunnel on kind) are not: their address is their node's, shared with every other
 * host-network pod there, so as a workload it would capture traffic meant for the node.
 */
export function buildDiscoverySnapshot(source: Pick<ClusterSource, 'pods' | 'services'>): DiscoverySnapshot {
  const services = source.services();
  const workloads = source
    .pods()
    .filter((pod) => !pod.isTerminal && pod.isHostNetwork !== true && pod.podIp !== '')
    .map((pod) => ({
      uid: pod.uid,
      name: pod.name,
      namespace: pod.namespace,
      serviceAccount: pod.serviceAccount,
      node: pod.nodeName,
      podIp: pod.podIp,
      status: pod.isReady && !pod.isDeleting ? ('HEALTHY' as const) : ('UNHEALTHY' as const),
      protocol: pod.isMeshed ? ('HBONE' as const) : ('TCP' as const),
      ...(pod.isMeshed && pod.tunnelAddress ? { tunnelAddress: pod.tunnelAddress } : {}),
      capacity: 1,
      services: services.filter((s) => matches(pod, s)).map(serviceKey),
    }));
  return {
    workloads,
    services: services.map((s) => ({ namespace: s.namespace, name: s.name, vip: s.vip, ports: s.ports })),
  };
}
