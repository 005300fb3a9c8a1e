export { failCall, startAdsServer } from './ads-server.ts';
export type { AdsServer, AdsServerOptions, XdsMessage, XdsNack } from './ads-server.ts';
export { startDeltaAdsServer } from './delta-ads-server.ts';
export type { DeltaAdsServer, DeltaAdsServerOptions } from './delta-ads-server.ts';
export {
  ADDRESS_TYPE_URL,
  AUTHORIZATION_TYPE_URL,
  decodeAddress,
  decodeWorkload,
  encodeAddress,
} from './workload-protos.ts';
export type { AddressMessage, ServiceMessage, WorkloadMessage } from './workload-protos.ts';
export { addressResources, DEFAULT_CLUSTER_ID, workloadUid } from './workload-resources.ts';
export type { NamedResource, ResourceSet } from './workload-resources.ts';
export { authorizeZtunnel, parseZtunnelNode } from './ztunnel-node.ts';
export type { XdsCaller, ZtunnelNode } from './ztunnel-node.ts';
export { envoyApi, adsService, sdsService, TYPE_URL } from './envoy-protos.ts';
export { parseProxyNode, proxyNodeId } from './proxy-node.ts';
export type { ProxyNode, ProxyType } from './proxy-node.ts';
export { proxyResources } from './proxy-resources.ts';
export type { ProxyResources } from './router-config.ts';
export {
  GATEWAY_LISTENER_PORT,
  TRUST_DOMAIN,
  outboundClusterName,
  routerResources,
} from './router-config.ts';
export { buildNetworkingSnapshot, EMPTY_NETWORKING } from './networking/index.ts';
export type { IstioObject, NetworkingInput, NetworkingSnapshot } from './networking/index.ts';
export {
  DEFAULT_ROUTE_POLICY,
  ISTIO_DEFAULT_ATTEMPTS,
  ISTIO_DEFAULT_RETRY_ON,
  ROUTE_POLICY_METADATA,
  checkRetryOn,
  routePolicyOf,
} from './route-policy.ts';
export type { RoutePolicy } from './route-policy.ts';
export { deriveConnectionTimes, parseAccessLogLine } from './access-log.ts';
export type { ParsedAccessLog } from './access-log.ts';
