import type { KubernetesObject, V1DaemonSet, V1Deployment, V1Service } from '@kubernetes/client-node';
import { buildGateway } from './gateway.ts';
import type { GatewayManifestOptions } from './gateway.ts';
import { buildClient } from './client.ts';
import type { ClientManifestOptions } from './client.ts';
import { buildHttpbin } from './httpbin.ts';
import type { HttpbinManifestOptions } from './httpbin.ts';
import { buildZtunnelDaemonSet } from './ztunnel-daemonset.ts';
import type { ZtunnelManifestOptions } from './ztunnel-daemonset.ts';

export type ClusterObject = V1Deployment | V1DaemonSet | V1Service;

export interface MeshManifestOptions {
  ztunnel: ZtunnelManifestOptions;
  httpbin: HttpbinManifestOptions;
  /** Omitted: no gateway (tests that reach pods directly). */
  gateway?: GatewayManifestOptions;
  /** A meshed client pod calling httpbin (E5); omitted: none. */
  client?: ClientManifestOptions;
}

/** Everything an experiment deploys, in apply order: the node proxies first, then the workload. */
export function buildMeshManifests(options: MeshManifestOptions): ClusterObject[] {
  return [
    buildZtunnelDaemonSet(options.ztunnel),
    ...buildHttpbin(options.httpbin),
    ...(options.gateway ? buildGateway(options.gateway) : []),
    ...(options.client ? [buildClient(options.client)] : []),
  ];
}

export function objectKey(object: KubernetesObject): string {
  return `${object.kind ?? '?'}/${object.metadata?.namespace ?? 'default'}/${object.metadata?.name ?? '?'}`;
}

export const isService = (o: ClusterObject): o is V1Service => o.kind === 'Service';
export const isDeployment = (o: ClusterObject): o is V1Deployment => o.kind === 'Deployment';
export const isDaemonSet = (o: ClusterObject): o is V1DaemonSet => o.kind === 'DaemonSet';
