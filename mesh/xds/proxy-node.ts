import type { ProtoObject } from './proto-values.ts';

/**
 * A proxy as istiod sees it (pilot/pkg/model/context.go ParseServiceNodeWithMetadata): the node id
 * `<type>~<ip>~<pod>.<namespace>~<namespace>.svc.cluster.local` and the node metadata pilot-agent
 * builds from its environment (every ISTIO_META_<KEY> variable becomes metadata <KEY>).
 */
export interface ProxyNode {
  id: string;
  type: 'router' | 'sidecar';
  ip: string;
  podName: string;
  namespace: string;
  metadata: Record<string, string>;
}

export type ProxyType = ProxyNode['type'];

export function proxyNodeId(node: Pick<ProxyNode, 'type' | 'ip' | 'podName' | 'namespace'>): string {
  return `${node.type}~${node.ip}~${node.podName}.${node.namespace}~${node.namespace}.svc.cluster.local`;
}

/** The node's metadata as plain strings (a google.protobuf.Struct as proto-loader decodes it). */
export function metadataOf(struct: unknown): Record<string, string> {
  const fields = (struct as { fields?: Record<string, ProtoObject> } | undefined)?.fields ?? {};
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(fields)) {
    // camelCase: protobufjs's built-in struct.proto (see proto-values.ts).
    const s = v['stringValue'];
    if (typeof s === 'string') out[key] = s;
    else if (typeof v['boolValue'] === 'boolean') out[key] = String(v['boolValue']);
    else if (typeof v['numberValue'] === 'number') out[key] = String(v['numberValue']);
  }
  return out;
}

/** The proxy a DiscoveryRequest's node names, or why it is not one we serve. */
export function parseProxyNode(node: { id?: string; metadata?: unknown } | undefined): ProxyNode | string {
  const id = node?.id ?? '';
  const parts = id.split('~');
  if (parts.length !== 4) return `node id ${JSON.stringify(id)} is not <type>~<ip>~<pod>.<ns>~<domain>`;
  const [type = '', ip = '', podDotNs = ''] = parts;
  if (type !== 'router' && type !== 'sidecar')
    return `node id ${JSON.stringify(id)}: type ${JSON.stringify(type)} is neither router nor sidecar`;
  const dot = podDotNs.lastIndexOf('.');
  if (dot <= 0) return `node id ${JSON.stringify(id)}: ${JSON.stringify(podDotNs)} is not <pod>.<namespace>`;
  return {
    id,
    type,
    ip,
    podName: podDotNs.slice(0, dot),
    namespace: podDotNs.slice(dot + 1),
    metadata: metadataOf(node?.metadata),
  };
}
