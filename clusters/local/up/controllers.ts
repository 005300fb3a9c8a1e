import { startControllers } from '../controllers.ts';
import type { LocalCluster } from './local-cluster.ts';

/** The controllers (ReplicaSet, Deployment, DaemonSet, EndpointSlice), last: they schedule onto kubelets. */
export function controllersStep(cluster: LocalCluster): Promise<void> {
  cluster.parts.stopControllers = startControllers({
    state: cluster.state,
    clock: cluster.clock,
    events: cluster.events,
    addresses: cluster.addresses,
    nodes: [...cluster.nodes],
    ...(cluster.options.istioShared ? { istioShared: true } : {}),
  });
  return Promise.resolve();
}
