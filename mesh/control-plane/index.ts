export { buildDiscoverySnapshot } from './build-discovery.ts';
export type { ClusterSource, IstioConfigView, PodView, RoutingView, ServiceView } from './cluster-source.ts';
export { createNetworkingBuilder } from './build-networking.ts';
export { CA_PORT, startControlPlane, XDS_PORT, ZTUNNEL_XDS_PORT } from './control-plane.ts';
export type { ControlPlane, ControlPlaneOptions, PushReport } from './control-plane.ts';
export { createDebouncer } from './debouncer.ts';
export type { Debouncer } from './debouncer.ts';
