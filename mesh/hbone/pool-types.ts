// The HBONE pool's settings, keys, events and counters (hbone-pool.ts, pool-connection.ts).

/**
 * ztunnel's HBONE client pool (istio/ztunnel src/proxy/pool.rs, defaults from src/config.rs):
 * connections keyed by (source identity, destination identity, destination IP:15008); at most 100
 * streams on one connection (POOL_MAX_STREAMS_PER_CONNECTION), a new connection past that; released
 * after 5 min without streams (POOL_UNUSED_RELEASE_TIMEOUT); HTTP/2 PING every 10 s, dropped if a
 * PING goes 20 s unanswered; a connection that received GOAWAY takes no new streams; a failed
 * CONNECT is returned as it is, never retried.
 */
export interface PoolSettings {
  maxStreamsPerConnection: number;
  /**
   * Client-side back-off after consecutive failed connects to one destination (istio/ztunnel#1191's
   * proposal; not in upstream 1.28): after n failures, new connects to it fail at once for
   * min(initialMs * 2^(n-1), maxMs). Undefined: off (upstream).
   */
  backoff?: { initialMs: number; maxMs: number } | undefined;
  /** A new connection not up (TCP + TLS) by then fails (Istio's cluster connect_timeout, 10 s). */
  connectTimeoutMs: number;
  idleReleaseMs: number;
  pingIntervalMs: number;
  pingTimeoutMs: number;
}

export interface PoolKey {
  srcIdentity: string;
  dstIdentity: string;
  /** Destination IP:15008. */
  dstAddr: string;
}

export type PoolCloseReason = 'goaway-drained' | 'evicted' | 'ping-timeout' | 'idle' | 'pool-destroyed';

/** What the pool did, for its owner's log (the harness counts stale connections and PINGs from it). */
export type PoolEvent =
  | { type: 'opened' | 'ping' | 'ping-timeout' | 'goaway'; conn: number; dstAddr: string }
  | { type: 'closed'; conn: number; dstAddr: string; reason: PoolCloseReason | 'peer-closed' }
  /** Out of the pool: no new stream will use it (its open streams may go on). */
  | {
      type: 'removed';
      conn: number;
      dstAddr: string;
      reason: PoolCloseReason | 'peer-closed' | 'connect-failed';
    }
  | { type: 'connect-failed'; dstAddr: string; error: string }
  | { type: 'backoff'; dstAddr: string; ms: number };

export interface PoolStats {
  connectionsOpened: number;
  connections: number;
  goawaysSeen: number;
  pingTimeouts: number;
}
