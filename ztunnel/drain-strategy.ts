import type { DiscoveryChange } from '../mesh/discovery/index.ts';
import type { HbonePool } from '../mesh/hbone/index.ts';
import { HBONE_PORT } from '../mesh/workload.ts';
import type { PodListeners } from './inbound/pod-listeners.ts';

/**
 * Per-pod drain options from istio/ztunnel#1191 ("Implement improved draining"), for seed 003's
 * comparison:
 * - `none` (option 4, upstream 1.28): DelWorkload comes after the pod's network is gone, so what
 *   ztunnel does then reaches nobody; clients keep pooled connections until their keepalive (PING
 *   every 10 s, 20 s timeout) gives up.
 * - `goaway-on-shutdown-start` (option 1): a ZDS "ShutdownStarting" at termination start is
 *   answered with GOAWAY on the pod's inbound HBONE connections; the pod keeps serving, and clients
 *   open a new connection for each new stream to it (the istio/istio#51855 concern).
 * - `drain-on-cni-del` (option 2): DelWorkload moves to the CNI DEL hook, after the app has exited
 *   but before the network goes: GOAWAY, then TLS close_notify and FIN on each connection, then ack.
 * - `evict-on-removal` (option 3): the client's pool drops its connections to a workload as soon as
 *   discovery removes it.
 * - `goaway-on-unhealthy`: option 1 driven by discovery (UNHEALTHY) instead of a ZDS message.
 * The client-side pool back-off the thread also proposes is a separate switch (POOL_BACKOFF).
 */
export const DRAIN_STRATEGIES = [
  'none',
  'goaway-on-shutdown-start',
  'drain-on-cni-del',
  'evict-on-removal',
  'goaway-on-unhealthy',
] as const;
export type DrainStrategy = (typeof DRAIN_STRATEGIES)[number];

export function parseDrainStrategy(value: string | undefined): DrainStrategy {
  const v = value ?? 'none';
  if ((DRAIN_STRATEGIES as readonly string[]).includes(v)) return v as DrainStrategy;
  throw new Error(
    `Expected DRAIN_STRATEGY to be one of ${DRAIN_STRATEGIES.join(', ')}, got ${JSON.stringify(value)}`,
  );
}

/** Applies the strategy to one discovery change; returns what it did, for the log. */
export function applyDrainStrategy(
  strategy: DrainStrategy,
  change: DiscoveryChange,
  local: { podsByUid: ReadonlyMap<string, PodListeners>; pool?: HbonePool },
): { goaways: number; evicted: number } {
  let goaways = 0;
  let evicted = 0;
  if (strategy === 'goaway-on-unhealthy') {
    for (const w of change.becameUnhealthy) goaways += local.podsByUid.get(w.uid)?.sendGoaway() ?? 0;
  } else if (strategy === 'evict-on-removal' && local.pool) {
    for (const w of change.removed) evicted += local.pool.evict(`${w.podIp}:${String(HBONE_PORT)}`);
  }
  return { goaways, evicted };
}
