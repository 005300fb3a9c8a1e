import type { ClientHttp2Session } from 'node:http2';
import { waitAtMost } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { identityServerName, parseSpiffeId } from '../pki/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';
import { openHboneSession } from './hbone-client.ts';
import type { PoolCloseReason, PoolEvent, PoolKey, PoolSettings, PoolStats } from './pool-types.ts';
import { keepStreamsAfterGoaway } from './keep-streams-after-goaway.ts';

export interface PooledConnection {
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

/** What one pool's connections share: its settings, its books and its end. */
export interface PoolState {
  settings: PoolSettings;
  clock: Clock;
  emit: (event: PoolEvent) => void;
  nextId: number;
  /** Consecutive connect failures per destination, and until when new connects fail fast. */
  failures: Map<string, { count: number; until: number }>;
  byKey: Map<string, Set<PooledConnection>>;
  stats: PoolStats;
  stop: AbortController;
}

/** Takes a connection out of the pool (no new streams on it); says so once, with why. */
export function removeConnection(
  pool: PoolState,
  conn: PooledConnection,
  reason: PoolCloseReason | 'peer-closed' | 'connect-failed',
): void {
  conn.usable = false;
  conn.idle?.abort();
  const set = pool.byKey.get(conn.key);
  if (set?.delete(conn)) {
    pool.stats.connections--;
    if (conn.session) pool.emit({ type: 'removed', conn: conn.id, dstAddr: conn.dstAddr, reason });
  }
  if (set?.size === 0) pool.byKey.delete(conn.key);
}

/** Removes a connection and closes it gracefully (its open streams may finish). */
export function retireConnection(pool: PoolState, conn: PooledConnection, reason: 'idle' | 'evicted'): void {
  removeConnection(pool, conn, reason);
  conn.closeReason ??= reason;
  conn.session?.close();
}

export function startIdleTimer(pool: PoolState, conn: PooledConnection): void {
  conn.idle = new AbortController();
  pool.clock.sleep(pool.settings.idleReleaseMs, AbortSignal.any([conn.idle.signal, pool.stop.signal])).then(
    () => {
      retireConnection(pool, conn, 'idle');
    },
    () => undefined, // a new stream (or the pool's end) cancelled the release
  );
}

/** Sends one PING: settles with whether it was answered (false at once when it could not be sent). */
function sendPing(session: ClientHttp2Session): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const sent = session.ping((err) => {
      resolve(!err);
    });
    if (!sent) resolve(false);
  });
}

/** PING every interval; no answer within the timeout drops the connection. */
async function keepAlive(
  pool: PoolState,
  conn: PooledConnection,
  session: ClientHttp2Session,
): Promise<void> {
  const isOver = (): boolean => session.closed || session.destroyed || pool.stop.signal.aborted;
  while (!isOver()) {
    await pool.clock.sleep(pool.settings.pingIntervalMs, pool.stop.signal).catch(() => undefined);
    if (isOver()) return;
    pool.emit({ type: 'ping', conn: conn.id, dstAddr: conn.dstAddr });
    const reply = await waitAtMost(pool.clock, sendPing(session), pool.settings.pingTimeoutMs);
    const ok = reply.done && reply.value;
    if (!ok && !isOver()) {
      pool.stats.pingTimeouts++;
      pool.emit({ type: 'ping-timeout', conn: conn.id, dstAddr: conn.dstAddr });
      removeConnection(pool, conn, 'ping-timeout');
      conn.closeReason ??= 'ping-timeout';
      session.destroy();
      return;
    }
  }
}

/** The connection is up: count it, follow its GOAWAY and close, and keep it alive. */
function watchSession(pool: PoolState, conn: PooledConnection, session: ClientHttp2Session): void {
  conn.session = session;
  pool.stats.connectionsOpened++;
  pool.failures.delete(conn.dstAddr);
  pool.emit({ type: 'opened', conn: conn.id, dstAddr: conn.dstAddr });
  session.once('goaway', () => {
    pool.stats.goawaysSeen++;
    pool.emit({ type: 'goaway', conn: conn.id, dstAddr: conn.dstAddr });
    removeConnection(pool, conn, 'goaway-drained');
    conn.closeReason ??= 'goaway-drained';
  });
  keepStreamsAfterGoaway(session, () => conn.streams);
  session.once('close', () => {
    removeConnection(pool, conn, conn.closeReason ?? 'peer-closed');
    pool.emit({
      type: 'closed',
      conn: conn.id,
      dstAddr: conn.dstAddr,
      reason: conn.closeReason ?? 'peer-closed',
    });
  });
  void keepAlive(pool, conn, session);
}

/** The connection could not be opened: drop it, and back off its destination when configured to. */
function recordConnectFailure(pool: PoolState, conn: PooledConnection, err: unknown): void {
  removeConnection(pool, conn, 'connect-failed');
  pool.emit({
    type: 'connect-failed',
    dstAddr: conn.dstAddr,
    error: err instanceof Error ? err.message : String(err),
  });
  const { backoff } = pool.settings;
  if (backoff) {
    const count = (pool.failures.get(conn.dstAddr)?.count ?? 0) + 1;
    const ms = Math.min(backoff.initialMs * 2 ** (count - 1), backoff.maxMs);
    pool.failures.set(conn.dstAddr, { count, until: pool.clock.now() + ms });
    pool.emit({ type: 'backoff', dstAddr: conn.dstAddr, ms });
  }
}

/** Opens a new connection for `key` and adds it to the pool at once (streams may reserve it before it is up). */
export function openConnection(
  pool: PoolState,
  target: { keyText: string; key: PoolKey; cert: WorkloadCertificate },
): PooledConnection {
  const { keyText, key, cert } = target;
  const [host = '', port = '15008'] = key.dstAddr.split(/:(?=\d+$)/);
  // The SNI names the wanted identity: a pod's own ztunnel ignores it, a node-address one needs it.
  const wanted = parseSpiffeId(key.dstIdentity);
  const ready = openHboneSession({
    host,
    port: Number(port),
    cert,
    expectedIdentity: key.dstIdentity,
    connectTimeoutMs: pool.settings.connectTimeoutMs,
    ...(wanted ? { servername: identityServerName(wanted) } : {}),
  });
  const conn: PooledConnection = {
    id: ++pool.nextId,
    key: keyText,
    dstAddr: key.dstAddr,
    session: undefined,
    ready,
    streams: 0,
    usable: true,
  };
  pool.stats.connections++;
  let set = pool.byKey.get(keyText);
  if (!set) pool.byKey.set(keyText, (set = new Set()));
  set.add(conn);
  ready.then(
    (session) => {
      watchSession(pool, conn, session);
    },
    (err: unknown) => {
      recordConnectFailure(pool, conn, err);
    },
  );
  return conn;
}
