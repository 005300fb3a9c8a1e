import type { Clock } from '../../lib/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';
import { openTunnel } from './hbone-client.ts';
import type { Tunnel } from './hbone-client.ts';
import { openConnection, retireConnection, startIdleTimer } from './pool-connection.ts';
import type { PooledConnection, PoolState } from './pool-connection.ts';
import type { PoolSettings, PoolKey, PoolEvent, PoolStats } from './pool-types.ts';
export type { PoolSettings, PoolKey, PoolCloseReason, PoolEvent, PoolStats } from './pool-types.ts';

export { keepStreamsAfterGoaway } from './keep-streams-after-goaway.ts';

export const DEFAULT_POOL_SETTINGS: PoolSettings = {
  maxStreamsPerConnection: 100,
  connectTimeoutMs: 10_000,
  idleReleaseMs: 5 * 60_000,
  pingIntervalMs: 10_000,
  pingTimeoutMs: 20_000,
};

export interface HbonePool {
  /** CONNECT through a pooled connection for `key`, opening one when none has room. */
  connect(
    key: PoolKey,
    cert: WorkloadCertificate,
    authority: string,
    headers?: Record<string, string>,
  ): Promise<Tunnel>;
  /** Drops every connection to `dstAddr` (client-pool eviction when a destination workload goes). */
  evict(dstAddr: string): number;
  stats(): PoolStats;
  destroy(): void;
}

export function createHbonePool(options: {
  clock: Clock;
  settings?: Partial<PoolSettings>;
  onEvent?: (event: PoolEvent) => void;
}): HbonePool {
  const pool: PoolState = {
    settings: { ...DEFAULT_POOL_SETTINGS, ...options.settings },
    clock: options.clock,
    emit: options.onEvent ?? (() => undefined),
    nextId: 0,
    failures: new Map(),
    byKey: new Map(),
    stats: { connectionsOpened: 0, connections: 0, goawaysSeen: 0, pingTimeouts: 0 },
    stop: new AbortController(),
  };
  return {
    connect: (key, cert, authority, headers = {}) =>
      connectThroughPool(pool, { key, cert, authority, headers }),
    evict: (dstAddr) => evictDestination(pool, dstAddr),
    stats: () => ({ ...pool.stats }),
    destroy() {
      destroyPool(pool);
    },
  };
}

/** Fails at once while `dstAddr` is backing off after failed connects. */
function checkBackoff(pool: PoolState, dstAddr: string): void {
  const failing = pool.failures.get(dstAddr);
  if (failing && failing.until > pool.clock.now())
    throw new Error(
      `backing off ${dstAddr} after ${String(failing.count)} failed connects (${String(Math.round(failing.until - pool.clock.now()))} ms left)`,
    );
}

/** A stream ended (or never opened): the connection's last one starts its idle release. */
function releaseStream(pool: PoolState, conn: PooledConnection): void {
  conn.streams--;
  if (conn.streams === 0 && conn.usable) startIdleTimer(pool, conn);
  conn.session?.emit('stream-released');
}

async function connectThroughPool(
  pool: PoolState,
  request: { key: PoolKey; cert: WorkloadCertificate; authority: string; headers: Record<string, string> },
): Promise<Tunnel> {
  const { key, cert, authority, headers } = request;
  const keyText = `${key.srcIdentity}|${key.dstIdentity}|${key.dstAddr}`;
  checkBackoff(pool, key.dstAddr);
  const existing = [...(pool.byKey.get(keyText) ?? [])].find(
    (c) => c.usable && c.streams < pool.settings.maxStreamsPerConnection,
  );
  const conn = existing ?? openConnection(pool, { keyText, key, cert });
  conn.streams++;
  conn.idle?.abort();
  const release = (): void => {
    releaseStream(pool, conn);
  };
  try {
    const tunnel = await openTunnel(await conn.ready, authority, headers);
    tunnel.stream.once('close', release);
    return tunnel;
  } catch (err) {
    release();
    throw err;
  }
}

function evictDestination(pool: PoolState, dstAddr: string): number {
  let n = 0;
  for (const set of [...pool.byKey.values()]) {
    for (const conn of [...set]) {
      if (!conn.key.endsWith(`|${dstAddr}`)) continue;
      retireConnection(pool, conn, 'evicted');
      n++;
    }
  }
  return n;
}

function destroyPool(pool: PoolState): void {
  pool.stop.abort();
  for (const set of [...pool.byKey.values()])
    for (const conn of [...set]) {
      conn.closeReason ??= 'pool-destroyed';
      conn.session?.destroy();
    }
  pool.byKey.clear();
  pool.stats.connections = 0;
}
