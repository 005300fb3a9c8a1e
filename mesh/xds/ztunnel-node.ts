import { metadataOf } from './proxy-node.ts';

/**
 * An istio/ztunnel instance as its delta ADS requests name it (src/xds/client.rs 336-373 at 1.28.1):
 * node id `ztunnel~<INSTANCE_IP>~<POD_NAME>.<POD_NAMESPACE>~<POD_NAMESPACE>.svc.cluster.local`,
 * metadata NAME, NAMESPACE, INSTANCE_IPS, NODE_NAME and every ISTIO_META_* variable.
 */
export interface ZtunnelNode {
  id: string;
  ip: string;
  podName: string;
  namespace: string;
  /** The node it serves (metadata NODE_NAME): in shared mode, the pods whose Workload.node is this. */
  nodeName: string;
  metadata: Record<string, string>;
}

/** The ztunnel a DeltaDiscoveryRequest's node names, or why it is not one. */
export function parseZtunnelNode(
  node: { id?: string; metadata?: unknown } | undefined,
): ZtunnelNode | string {
  const id = node?.id ?? '';
  const [type = '', ip = '', podDotNs = '', ...rest] = id.split('~');
  if (type !== 'ztunnel' || rest.length !== 1)
    return `node id ${JSON.stringify(id)} is not ztunnel~<ip>~<pod>.<namespace>~<domain>`;
  const dot = podDotNs.lastIndexOf('.');
  if (dot <= 0) return `node id ${JSON.stringify(id)}: ${JSON.stringify(podDotNs)} is not <pod>.<namespace>`;
  const metadata = metadataOf(node?.metadata);
  return {
    id,
    ip,
    podName: podDotNs.slice(0, dot),
    namespace: podDotNs.slice(dot + 1),
    nodeName: metadata['NODE_NAME'] ?? '',
    metadata,
  };
}

/** Whom a bearer token stands for (TokenReview): a service account's namespace, and its bound pod. */
export interface XdsCaller {
  namespace: string;
  /** '' for a token not bound to a pod. */
  podName: string;
}

/**
 * istiod's check of an xDS connection against its authenticated identity (istio/istio
 * pilot/pkg/xds/auth.go 59-74 `checkConnectionIdentity`, at 86c9f01f): the identity's namespace
 * must be the node's. One step further, as for Envoy (mesh/control-plane/proxy-authorizer.ts): a
 * token bound to a pod must be the node's own pod's.
 */
export function authorizeZtunnel(node: ZtunnelNode, caller: XdsCaller): string | undefined {
  if (caller.namespace !== node.namespace)
    return `the token is for namespace ${caller.namespace}, the node ${node.id} is in ${node.namespace}`;
  if (caller.podName !== '' && caller.podName !== node.podName)
    return `the token is bound to pod ${caller.namespace}/${caller.podName}, the node is ${node.namespace}/${node.podName}`;
  return undefined;
}
