import type { DiscoverySnapshot } from '../discovery/index.ts';
import type { ProxyNode } from './proxy-node.ts';
import { routerResources } from './router-config.ts';
import type { ProxyResources } from './router-config.ts';
import { sidecarResources } from './sidecar-config.ts';

/** What istiod would send this proxy now: by its type, from the cluster's state. */
export function proxyResources(node: ProxyNode, snapshot: DiscoverySnapshot): ProxyResources {
  return node.type === 'router' ? routerResources(node, snapshot) : sidecarResources(node);
}
