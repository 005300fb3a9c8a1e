import type { X509Certificate } from 'node:crypto';
import { parseSpiffeId } from '../pki/spiffe.ts';
import type { ProxyNode } from '../xds/index.ts';
import type { PodView } from './cluster-source.ts';

/**
 * Who may have a proxy's configuration, as istiod's xDS server decides it (pilot/pkg/xds/ads.go
 * initConnection -> checkConnectionIdentity): the client certificate's SPIFFE identity must be the
 * node's namespace and service account. One step further than istiod, so each proxy gets only its
 * own configuration: the node must name a live pod of that identity at that address.
 */
export function authorizeProxy(
  node: ProxyNode,
  peer: X509Certificate | undefined,
  pods: () => readonly PodView[],
): string | undefined {
  if (!peer) return 'no client certificate: the xDS port requires mTLS with a workload certificate';
  const identities = (peer.subjectAltName ?? '')
    .split(', ')
    .filter((s) => s.startsWith('URI:'))
    .map((s) => parseSpiffeId(s.slice(4)))
    .filter((id) => id !== undefined);
  const sa = node.metadata['SERVICE_ACCOUNT'];
  const id = identities.find(
    (i) => i.namespace === node.namespace && (sa === undefined || i.serviceAccount === sa),
  );
  if (!id)
    return `no identity in the certificate (${peer.subjectAltName ?? 'none'}) matches ${node.namespace}/${sa ?? '*'}`;
  const pod = pods().find(
    (p) => p.podIp === node.ip && p.namespace === node.namespace && p.name === node.podName,
  );
  if (!pod) return `no pod ${node.namespace}/${node.podName} at ${node.ip}`;
  if (pod.serviceAccount !== id.serviceAccount)
    return `pod ${node.namespace}/${node.podName} runs as ${pod.serviceAccount}, the certificate is ${id.serviceAccount}`;
  return undefined;
}
