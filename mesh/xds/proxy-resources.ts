import type { DiscoverySnapshot } from '../discovery/index.ts';
import { EMPTY_NETWORKING } from './networking/index.ts';
import type { NetworkingSnapshot } from './networking/index.ts';
import type { ProxyNode } from './proxy-node.ts';
import { routerResources } from './router-config.ts';
import type { ProxyResources } from './router-config.ts';
import { sidecarResources } from './sidecar-config.ts';

/** What istiod would send this proxy now: by its type, from the cluster's state and Istio config. */
export function proxyResources(
  node: ProxyNode,
  snapshot: DiscoverySnapshot,
  networking: NetworkingSnapshot = EMPTY_NETWORKING,
): ProxyResources {
  return node.type === 'router' ? routerResources(node, snapshot, networking) : sidecarResources(node);
}
