export { buildDiscoverySnapshot } from './build-discovery.ts';
export type { ClusterSource, PodView, ServiceView } from './cluster-source.ts';
export { CA_PORT, startControlPlane, XDS_PORT, ZTUNNEL_XDS_PORT } from './control-plane.ts';
export type { ControlPlane, ControlPlaneOptions, PushReport } from './control-plane.ts';
export { createDebouncer } from './debouncer.ts';
export type { Debouncer } from './debouncer.ts';
