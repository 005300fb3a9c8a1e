import type { DiscoveryChange } from '../mesh/discovery/index.ts';
import type { HbonePool } from '../mesh/hbone/index.ts';
import { HBONE_PORT } from '../mesh/workload.ts';
import type { PodListeners } from './inbound/pod-listeners.ts';

/**
 * Per-pod drain options from istio/ztunnel#1191 ("Implement improved draining"), for seed 003's
 * comparison. `none` is upstream 1.28: nothing happens when a workload turns UNHEALTHY or goes away,
 * clients keep pooled connections until they fail. `goaway-on-unhealthy`: the destination's ztunnel
 * sends GOAWAY on that pod's inbound HBONE connections as soon as discovery marks it UNHEALTHY, so
 * clients open new connections (to other endpoints) for new streams. `evict-on-removal`: the client
 * side drops its pooled connections to a workload as soon as discovery removes it.
 */
export const DRAIN_STRATEGIES = ['none', 'goaway-on-unhealthy', 'evict-on-removal'] as const;
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
