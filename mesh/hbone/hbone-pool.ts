import type { ClientHttp2Session } from 'node:http2';
import { waitAtMost } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { identityServerName, parseSpiffeId } from '../pki/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';
import { openHboneSession, openTunnel } from './hbone-client.ts';
import type { Tunnel } from './hbone-client.ts';

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

export const DEFAULT_POOL_SETTINGS: PoolSettings = {
  maxStreamsPerConnection: 100,
  connectTimeoutMs: 10_000,
  idleReleaseMs: 5 * 60_000,
  pingIntervalMs: 10_000,
  pingTimeoutMs: 20_000,
};

export interface PoolKey {
  srcIdentity: string;
  dstIdentity: string;
  /** Destination IP:15008. */
  dstAddr: string;
}

interface PooledConnection {
  id: number;
  key: string;
  dstAddr: string;
  /** Why the pool closed it, when it did (otherwise the peer or the network ended it). */
  closeReason?: PoolCloseReason;
  /** Set once the connection is up (`ready` settles then); callers reserve streams before that. */
  session: ClientHttp2Session | undefined;
  ready: Promise<ClientHttp2Session>;
  streams: number;
  usable: boolean;
  idle?: AbortController;
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

/**
 * After a GOAWAY, Envoy (and ztunnel's own pool) open no new stream on the connection but keep the
 * streams it has until they end (envoyproxy/envoy#34897: the inner HTTP/1.1 connections keep their
 * tunnels until the old ztunnel's deadline), and only then close it. Node's client instead answers
 * every NO_ERROR GOAWAY by calling session.close() (lib/internal/http2/core.js `onGoawayData`), which
 * sends a GOAWAY of its own with last stream id 0. A server on the h2 crate (istio/ztunnel) then
 * fails every stream above 0, i.e. all of them: measured with istio/ztunnel 1.28.1
 * (`npm run ztunnel-conformance`), the tunnels ended 8 ms after SIGTERM instead of at the deadline.
 * And h2's graceful shutdown sends two GOAWAYs (last stream 2^31-1, then, after a PING, the real
 * last), so swallowing only the first is not enough. Installed when the session opens: the close()
 * that follows each NO_ERROR GOAWAY is swallowed; after the first, the session is closed here once
 * its last stream is done.
 */
export function keepStreamsAfterGoaway(session: ClientHttp2Session, liveStreams: () => number): void {
  const close = session.close.bind(session);
  let goawayClose = false;
  session.close = (callback?: () => void) => {
    if (!goawayClose) {
      close(callback);
      return;
    }
    goawayClose = false;
    if (callback) session.once('close', callback);
  };
  const closeWhenIdle = (): void => {
    if (session.closed || session.destroyed) return;
    if (liveStreams() > 0) {
      session.once('stream-released', closeWhenIdle);
      return;
    }
    close();
  };
  let first = true;
  session.on('goaway', (code: number) => {
    if (code !== 0) return; // Node destroys the session: streams end with the error, as in Envoy
    goawayClose = true; // Node calls close() right after emitting 'goaway'
    if (first) {
      first = false;
      closeWhenIdle();
    }
  });
}

export function createHbonePool(options: {
  clock: Clock;
  settings?: Partial<PoolSettings>;
  onEvent?: (event: PoolEvent) => void;
}): HbonePool {
  const settings = { ...DEFAULT_POOL_SETTINGS, ...options.settings };
  const { clock } = options;
  const emit = options.onEvent ?? (() => undefined);
  let nextId = 0;
  /** Consecutive connect failures per destination, and until when new connects fail fast. */
  const failures = new Map<string, { count: number; until: number }>();
  const byKey = new Map<string, Set<PooledConnection>>();
  const stats: PoolStats = { connectionsOpened: 0, connections: 0, goawaysSeen: 0, pingTimeouts: 0 };
  const stop = new AbortController();

  /** Takes a connection out of the pool (no new streams on it); says so once, with why. */
  const remove = (
    conn: PooledConnection,
    reason: PoolCloseReason | 'peer-closed' | 'connect-failed',
  ): void => {
    conn.usable = false;
    conn.idle?.abort();
    const set = byKey.get(conn.key);
    if (set?.delete(conn)) {
      stats.connections--;
      if (conn.session) emit({ type: 'removed', conn: conn.id, dstAddr: conn.dstAddr, reason });
    }
    if (set?.size === 0) byKey.delete(conn.key);
  };

  const startIdleTimer = (conn: PooledConnection): void => {
    conn.idle = new AbortController();
    clock.sleep(settings.idleReleaseMs, AbortSignal.any([conn.idle.signal, stop.signal])).then(
      () => {
        remove(conn, 'idle');
        conn.closeReason ??= 'idle';
        conn.session?.close();
      },
      () => undefined, // a new stream (or the pool's end) cancelled the release
    );
  };

  /** PING every interval; no answer within the timeout drops the connection. */
  const keepAlive = async (conn: PooledConnection, session: ClientHttp2Session): Promise<void> => {
    const isOver = (): boolean => session.closed || session.destroyed || stop.signal.aborted;
    while (!isOver()) {
      await clock.sleep(settings.pingIntervalMs, stop.signal).catch(() => undefined);
      if (isOver()) return;
      emit({ type: 'ping', conn: conn.id, dstAddr: conn.dstAddr });
      const answered = new Promise<boolean>((resolve) => {
        const sent = session.ping((err) => {
          resolve(!err);
        });
        if (!sent) resolve(false);
      });
      const reply = await waitAtMost(clock, answered, settings.pingTimeoutMs);
      const ok = reply.done && reply.value;
      if (!ok && !isOver()) {
        stats.pingTimeouts++;
        emit({ type: 'ping-timeout', conn: conn.id, dstAddr: conn.dstAddr });
        remove(conn, 'ping-timeout');
        conn.closeReason ??= 'ping-timeout';
        session.destroy();
        return;
      }
    }
  };

  const open = (keyText: string, key: PoolKey, cert: WorkloadCertificate): PooledConnection => {
    const [host = '', port = '15008'] = key.dstAddr.split(/:(?=\d+$)/);
    // The SNI names the wanted identity: a pod's own ztunnel ignores it, a node-address one needs it.
    const wanted = parseSpiffeId(key.dstIdentity);
    const ready = openHboneSession({
      host,
      port: Number(port),
      cert,
      expectedIdentity: key.dstIdentity,
      connectTimeoutMs: settings.connectTimeoutMs,
      ...(wanted ? { servername: identityServerName(wanted) } : {}),
    });
    const conn: PooledConnection = {
      id: ++nextId,
      key: keyText,
      dstAddr: key.dstAddr,
      session: undefined,
      ready,
      streams: 0,
      usable: true,
    };
    stats.connections++;
    let set = byKey.get(keyText);
    if (!set) byKey.set(keyText, (set = new Set()));
    set.add(conn);
    ready.then(
      (session) => {
        conn.session = session;
        stats.connectionsOpened++;
        failures.delete(key.dstAddr);
        emit({ type: 'opened', conn: conn.id, dstAddr: conn.dstAddr });
        session.once('goaway', () => {
          stats.goawaysSeen++;
          emit({ type: 'goaway', conn: conn.id, dstAddr: conn.dstAddr });
          remove(conn, 'goaway-drained');
          conn.closeReason ??= 'goaway-drained';
        });
        keepStreamsAfterGoaway(session, () => conn.streams);
        session.once('close', () => {
          remove(conn, conn.closeReason ?? 'peer-closed');
          emit({
            type: 'closed',
            conn: conn.id,
            dstAddr: conn.dstAddr,
            reason: conn.closeReason ?? 'peer-closed',
          });
        });
        void keepAlive(conn, session);
      },
      (err: unknown) => {
        remove(conn, 'connect-failed');
        emit({
          type: 'connect-failed',
          dstAddr: key.dstAddr,
          error: err instanceof Error ? err.message : String(err),
        });
        if (settings.backoff) {
          const count = (failures.get(key.dstAddr)?.count ?? 0) + 1;
          const ms = Math.min(settings.backoff.initialMs * 2 ** (count - 1), settings.backoff.maxMs);
          failures.set(key.dstAddr, { count, until: clock.now() + ms });
          emit({ type: 'backoff', dstAddr: key.dstAddr, ms });
        }
      },
    );
    return conn;
  };

  return {
    async connect(key, cert, authority, headers = {}) {
      const keyText = `${key.srcIdentity}|${key.dstIdentity}|${key.dstAddr}`;
      const failing = failures.get(key.dstAddr);
      if (failing && failing.until > clock.now())
        throw new Error(
          `backing off ${key.dstAddr} after ${String(failing.count)} failed connects (${String(Math.round(failing.until - clock.now()))} ms left)`,
        );
      const existing = [...(byKey.get(keyText) ?? [])].find(
        (c) => c.usable && c.streams < settings.maxStreamsPerConnection,
      );
      const conn = existing ?? open(keyText, key, cert);
      conn.streams++;
      conn.idle?.abort();
      const release = (): void => {
        conn.streams--;
        if (conn.streams === 0 && conn.usable) startIdleTimer(conn);
        conn.session?.emit('stream-released');
      };
      try {
        const tunnel = await openTunnel(await conn.ready, authority, headers);
        tunnel.stream.once('close', release);
        return tunnel;
      } catch (err) {
        release();
        throw err;
      }
    },
    evict(dstAddr) {
      let n = 0;
      for (const set of [...byKey.values()]) {
        for (const conn of [...set]) {
          if (!conn.key.endsWith(`|${dstAddr}`)) continue;
          remove(conn, 'evicted');
          conn.closeReason ??= 'evicted';
          conn.session?.close();
          n++;
        }
      }
      return n;
    },
    stats: () => ({ ...stats }),
    destroy() {
      stop.abort();
      for (const set of [...byKey.values()])
        for (const conn of [...set]) {
          conn.closeReason ??= 'pool-destroyed';
          conn.session?.destroy();
        }
      byKey.clear();
      stats.connections = 0;
    },
  };
}
