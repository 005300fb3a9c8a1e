export { bindGatewayRoutes } from './gateway-binding.ts';
export type { BoundRoute, GatewayProxy, VirtualHostPlan } from './gateway-binding.ts';
export { parseGateway, resolveServerPort, selectsProxy } from './gateway.ts';
export type { GatewayConfig, GatewayServer } from './gateway.ts';
export { parseGoDuration } from './go-duration.ts';
export {
  DOMAIN_SUFFIX,
  intersectHosts,
  resolveGatewayName,
  resolveShortname,
  serverHostsFor,
  serviceOfHost,
} from './hostname.ts';
export { parseHttpRoute } from './http-route.ts';
export type { HttpMatch, HttpRetries, HttpRouteConfig } from './http-route.ts';
export type { IstioObject, Parsed } from './istio-object.ts';
export { buildNetworkingSnapshot, EMPTY_NETWORKING } from './networking-snapshot.ts';
export type { NetworkingInput, NetworkingSnapshot } from './networking-snapshot.ts';
export { isVisibleTo, parseVirtualService } from './virtual-service.ts';
export type { VirtualServiceConfig } from './virtual-service.ts';
