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
  idleReleaseMs: number;
  pingIntervalMs: number;
  pingTimeoutMs: number;
}

export const DEFAULT_POOL_SETTINGS: PoolSettings = {
  maxStreamsPerConnection: 100,
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
  key: string;
  /** Set once the connection is up (`ready` settles then); callers reserve streams before that. */
  session: ClientHttp2Session | undefined;
  ready: Promise<ClientHttp2Session>;
  streams: number;
  usable: boolean;
  idle?: AbortController;
}

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

export function createHbonePool(options: { clock: Clock; settings?: Partial<PoolSettings> }): HbonePool {
  const settings = { ...DEFAULT_POOL_SETTINGS, ...options.settings };
  const { clock } = options;
  const byKey = new Map<string, Set<PooledConnection>>();
  const stats: PoolStats = { connectionsOpened: 0, connections: 0, goawaysSeen: 0, pingTimeouts: 0 };
  const stop = new AbortController();

  const remove = (conn: PooledConnection): void => {
    conn.usable = false;
    conn.idle?.abort();
    const set = byKey.get(conn.key);
    if (set?.delete(conn)) stats.connections--;
    if (set?.size === 0) byKey.delete(conn.key);
  };

  const startIdleTimer = (conn: PooledConnection): void => {
    conn.idle = new AbortController();
    clock.sleep(settings.idleReleaseMs, AbortSignal.any([conn.idle.signal, stop.signal])).then(
      () => {
        remove(conn);
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
        remove(conn);
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
      ...(wanted ? { servername: identityServerName(wanted) } : {}),
    });
    const conn: PooledConnection = { key: keyText, session: undefined, ready, streams: 0, usable: true };
    stats.connections++;
    let set = byKey.get(keyText);
    if (!set) byKey.set(keyText, (set = new Set()));
    set.add(conn);
    ready.then(
      (session) => {
        conn.session = session;
        stats.connectionsOpened++;
        session.once('goaway', () => {
          stats.goawaysSeen++;
          remove(conn);
        });
        session.once('close', () => {
          remove(conn);
        });
        void keepAlive(conn, session);
      },
      () => {
        remove(conn);
      },
    );
    return conn;
  };

  return {
    async connect(key, cert, authority, headers = {}) {
      const keyText = `${key.srcIdentity}|${key.dstIdentity}|${key.dstAddr}`;
      const existing = [...(byKey.get(keyText) ?? [])].find(
        (c) => c.usable && c.streams < settings.maxStreamsPerConnection,
      );
      const conn = existing ?? open(keyText, key, cert);
      conn.streams++;
      conn.idle?.abort();
      const release = (): void => {
        conn.streams--;
        if (conn.streams === 0 && conn.usable) startIdleTimer(conn);
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
          remove(conn);
          conn.session?.close();
          n++;
        }
      }
      return n;
    },
    stats: () => ({ ...stats }),
    destroy() {
      stop.abort();
      for (const set of [...byKey.values()]) for (const conn of [...set]) conn.session?.destroy();
      byKey.clear();
      stats.connections = 0;
    },
  };
}
