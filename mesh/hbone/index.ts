export { openHboneSession, openTunnel } from './hbone-client.ts';
export type { Tunnel } from './hbone-client.ts';
export { createHbonePool, DEFAULT_POOL_SETTINGS, keepStreamsAfterGoaway } from './hbone-pool.ts';
export type {
  HbonePool,
  PoolCloseReason,
  PoolEvent,
  PoolKey,
  PoolSettings,
  PoolStats,
} from './hbone-pool.ts';
