import type { Logger } from '../../lib/index.ts';
import { buildNetworkingSnapshot } from '../xds/index.ts';
import type { NetworkingSnapshot } from '../xds/index.ts';
import type { ClusterSource } from './cluster-source.ts';

/**
 * Builds, for each push, the Istio config the gateway proxies' routes come from: the source's
 * Gateways and VirtualServices parsed (mesh/xds/networking) with every pod's labels. What is left out
 * or not served is logged once, when it first appears (a push repeats with each pod change), one
 * line each naming the object and what it uses; the control plane carries on without it, as istiod
 * does with config it cannot translate.
 */
export function createNetworkingBuilder(
  source: Pick<ClusterSource, 'pods' | 'routing'>,
  log: Logger,
): () => NetworkingSnapshot {
  let reported = new Set<string>();
  return () => {
    const routing = source.routing?.() ?? { gateways: [], virtualServices: [] };
    const { snapshot, problems } = buildNetworkingSnapshot({ ...routing, pods: source.pods() });
    for (const problem of problems)
      if (!reported.has(problem)) log.warn('Istio config not served', { problem });
    reported = new Set(problems);
    return snapshot;
  };
}
