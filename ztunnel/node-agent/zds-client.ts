// ztunnel's side of istio-cni's ZDS (our ztunnel with istiod's protocols): connect to the node
// agent's SOCK_SEQPACKET socket, say hello (V1), then apply each WorkloadRequest in order and ack it,
// as istio/ztunnel's workload manager does (src/inpod/workloadmanager.rs, statemanager.rs at
// 1.28.1): an add with the pod's network namespace as an SCM_RIGHTS fd (listeners bound inside it
// before the ack), keep, del, snapshot-sent (then ready). Node cannot receive the fd: zds-relay
// (mesh/zds/relay, connect keep-fds) holds it, and /proc/<relay>/fd/<n> names the namespace for
// as long as the pod is served. The socket not there yet is retried with istio/ztunnel's back-off.
// When istio-cni goes away (restarted, upgraded) the pods stay served and ztunnel reconnects, as
// workloadmanager.rs run_internal does: not ready until the new connection's snapshot is in, then
// the pods it did not name are removed (snapshot-reconcile.ts). Each connection has its own relay;
// an old one lives on while a pod it holds the namespace of is served.
import type { Logger } from '../../lib/index.ts';
import { decodeZdsRequest, encodeZdsAck, encodeZdsHello, startZdsRelay } from '../../mesh/zds/index.ts';
import type { ZdsDatagram, ZdsRelay, ZdsRelayConnection, ZdsRequest } from '../../mesh/zds/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { ipv4InNetns } from '../inpod/netns-address.ts';
import type { Ztunnel } from '../ztunnel.ts';
import { createSnapshotReconciler } from './snapshot-reconcile.ts';
import type { SnapshotReconciler } from './snapshot-reconcile.ts';

/** istio/ztunnel's default ZDS socket (INPOD_UDS, src/config.rs 809 at 1.28.1), in the chart's mount. */
export const DEFAULT_ZDS_SOCKET = '/var/run/ztunnel/ztunnel.sock';

/** A request waits this long (24 days: setTimeout's limit); the connection's end wakes it sooner. */
const FOREVER_MS = 2 ** 31 - 1;

export interface ZdsClientOptions {
  path: string;
  relayBinary: string;
  instance: string;
  ztunnel: Pick<Ztunnel, 'addWorkload' | 'delWorkload' | 'markSnapshotSent' | 'markSnapshotPending'>;
  log: Logger;
  /**
   * The pod's container ports, for the plaintext capture (:15006 forwards to a pod's one port): ZDS
   * does not carry them, discovery does (its services' target ports); none known, no capture.
   */
  portsOf?: (namespace: string, name: string) => number[];
  /** Reads the pod's address inside its namespace (default: a helper run there). */
  addressOf?: (netnsPath: string) => Promise<string>;
  /** False once ztunnel drains: a draining instance does not come back (workloadmanager.rs). */
  shouldReconnect?: () => boolean;
}

export interface ZdsClient {
  /** The uids served now. */
  pods(): string[];
  /** How many connections have been made (1, and one more after each drop). */
  connections(): number;
  destroy(): Promise<void>;
}

/** A connection to the node agent and the relay that made it (and keeps its pods' namespaces). */
interface Connected {
  relay: ZdsRelay;
  conn: ZdsRelayConnection;
}

/** Connects (retried from 10 ms, doubling, to 15 s: workloadmanager.rs), then serves the connection. */
async function connectWithBackoff(options: ZdsClientOptions): Promise<Connected>;
async function connectWithBackoff(
  options: ZdsClientOptions,
  stopped: () => boolean,
): Promise<Connected | undefined>;
async function connectWithBackoff(
  options: ZdsClientOptions,
  stopped: () => boolean = () => false,
): Promise<Connected | undefined> {
  for (let delayMs = 10, attempt = 1; ; attempt++, delayMs = Math.min(delayMs * 2, 15_000)) {
    if (stopped()) return undefined;
    let relay: ZdsRelay | undefined;
    try {
      relay = await startZdsRelay({
        binary: options.relayBinary,
        mode: 'connect',
        socketPath: options.path,
        keepFds: true,
      });
      // The relay dials once it runs: connected only when its connection is there.
      return { relay, conn: await relay.accept(5_000) };
    } catch (err) {
      void relay?.destroy();
      if (attempt === 1 || delayMs === 15_000)
        options.log.warn('node agent not there yet, retrying', {
          path: options.path,
          error: err instanceof Error ? err.message : String(err),
          retry_in_ms: delayMs,
        });
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}

/** One pod's namespace: an fd kept open by the relay of the connection that sent it. */
interface HeldNetns {
  relay: ZdsRelay;
  fd: number;
}

/**
 * An AddWorkload: the pod served in the namespace its fd names (kept by `from`, the relay of the
 * connection it came on), or, already served (a snapshot after a reconnect), its new fd let go.
 */
async function addPod({
  options,
  held,
  snapshot,
  from,
  request,
  datagram,
}: {
  options: ZdsClientOptions;
  held: Map<string, HeldNetns>;
  snapshot: SnapshotReconciler;
  from: ZdsRelay;
  request: Extract<ZdsRequest, { kind: 'add' }>;
  datagram: ZdsDatagram;
}): Promise<void> {
  const [ns, ...extra] = datagram.fds;
  for (const f of extra) if (f.fd !== undefined) from.release(f.fd);
  if (!ns?.nsfs || ns.fd === undefined) {
    if (ns?.fd !== undefined) from.release(ns.fd);
    throw new Error(`pod ${request.uid}: the add came without a network namespace`);
  }
  const info = request.workloadInfo;
  if (!info) {
    from.release(ns.fd);
    throw new Error('workload_info is required'); // statemanager.rs's refusal
  }
  snapshot.named(request.uid);
  if (held.has(request.uid)) {
    // A snapshot again after a reconnect: the pod is served already, in the namespace held.
    from.release(ns.fd);
    return;
  }
  const netns = `/proc/${String(from.pid)}/fd/${String(ns.fd)}`;
  try {
    const podIp = await (options.addressOf ?? ipv4InNetns)(netns);
    const workload: LocalWorkload = {
      uid: request.uid,
      name: info.name,
      namespace: info.namespace,
      serviceAccount: info.serviceAccount || 'default',
      podIp,
      appIp: podIp,
      ports: options.portsOf?.(info.namespace, info.name) ?? [],
      netns,
      inpodCapture: true,
    };
    await options.ztunnel.addWorkload(workload);
    held.set(request.uid, { relay: from, fd: ns.fd });
  } catch (err) {
    from.release(ns.fd);
    throw err;
  }
}

export async function connectZdsAgent(options: ZdsClientOptions): Promise<ZdsClient> {
  const { log, ztunnel } = options;
  const held = new Map<string, HeldNetns>();
  const snapshot = createSnapshotReconciler();
  let destroyed = false;
  let connections = 0;
  const stopped = (): boolean => destroyed || options.shouldReconnect?.() === false;
  let { relay, conn } = await connectWithBackoff(options);
  /** A relay no longer serving a connection exits once it holds no pod's namespace. */
  const retireIfIdle = (r: ZdsRelay): void => {
    if (r !== relay && ![...held.values()].some((h) => h.relay === r)) void r.destroy();
  };
  const release = (uid: string): void => {
    const h = held.get(uid);
    held.delete(uid);
    if (!h) return;
    h.relay.release(h.fd);
    retireIfIdle(h.relay);
  };

  const apply = async (from: ZdsRelay, conn: ZdsRelayConnection, datagram: ZdsDatagram): Promise<void> => {
    let request: ZdsRequest | undefined;
    try {
      if (datagram.truncated) throw new Error('a truncated message');
      request = decodeZdsRequest(datagram.data);
      if (request.kind === 'add') await addPod({ options, held, snapshot, from, request, datagram });
      else if (request.kind === 'keep') snapshot.named(request.uid);
      else if (request.kind === 'del') {
        snapshot.deleted(request.uid);
        ztunnel.delWorkload(request.uid, { networkGone: true });
        release(request.uid);
      } else {
        for (const uid of snapshot.snapshotSent(held.keys())) {
          // Deleted while we were away.
          ztunnel.delWorkload(uid, { networkGone: true });
          release(uid);
          log.info('pod removed: not in the new snapshot', { uid });
        }
        ztunnel.markSnapshotSent();
        log.info('ready', { instance: options.instance });
      }
      await conn.send(encodeZdsAck());
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      log.error('node agent message failed', { type: request?.kind ?? 'unreadable', error });
      await conn.send(encodeZdsAck(error)).catch(() => undefined);
    }
  };

  /** One connection, from hello until it ends. */
  const serve = async (from: ZdsRelay, on: ZdsRelayConnection): Promise<void> => {
    connections++;
    snapshot.newStream();
    try {
      await on.send(encodeZdsHello());
      for (;;) await apply(from, on, await on.receive(FOREVER_MS));
    } catch (err) {
      if (!destroyed)
        log.warn('node agent connection ended', { error: err instanceof Error ? err.message : String(err) });
    }
  };

  const stayConnected = async (): Promise<void> => {
    for (;;) {
      await serve(relay, conn);
      if (stopped()) return;
      ztunnel.markSnapshotPending();
      log.warn('node agent connection ended, reconnecting', { path: options.path, pods: held.size });
      const ended = relay;
      const next = await connectWithBackoff(options, stopped);
      if (!next) return;
      ({ relay, conn } = next);
      retireIfIdle(ended);
    }
  };
  void stayConnected().catch((err: unknown) => {
    log.error('node agent reconnect stopped', { error: err instanceof Error ? err.message : String(err) });
  });
  return {
    pods: () => [...held.keys()],
    connections: () => connections,
    destroy: async () => {
      destroyed = true;
      const relays = new Set([relay, ...[...held.values()].map((h) => h.relay)]);
      await Promise.all([...relays].map((r) => r.destroy()));
    },
  };
}
