export { connectDiscovery, connectDiscoveryWithRetry, whenSynced } from './discovery-client.ts';
export type { DiscoveryClient, DiscoveryClientOptions } from './discovery-client.ts';
export { createDiscoveryState } from './discovery-state.ts';
export { RESUBSCRIBE_BACKOFF, staySubscribed } from './stay-subscribed.ts';
export type { DiscoveryChange, DiscoveryState } from './discovery-state.ts';
export { DISCOVERY_PROTOCOL_VERSION, hboneAddressOf, serviceKey } from './protocol.ts';
export type {
  ClientMessage,
  Delta,
  ServerMessage,
  ServiceEntry,
  ServicePort,
  WorkloadEntry,
  WorkloadStatus,
} from './protocol.ts';
export { startDiscoveryServer } from './discovery-server.ts';
export type { DiscoveryServer, DiscoverySnapshot, PushResult } from './discovery-server.ts';
