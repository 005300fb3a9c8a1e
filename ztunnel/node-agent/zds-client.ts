// ztunnel's side of istio-cni's ZDS (our ztunnel with istiod's protocols): connect to the node
// agent's SOCK_SEQPACKET socket, say hello (V1), then apply each WorkloadRequest in order and ack it,
// as istio/ztunnel's workload manager does (src/inpod/workloadmanager.rs, statemanager.rs at
// 1.28.1): an add with the pod's network namespace as an SCM_RIGHTS fd (listeners bound inside it
// before the ack), keep, del, snapshot-sent (then ready). Node cannot receive the fd: zds-relay
// (mesh/zds/relay, connect keep-fds) holds it, and /proc/<relay>/fd/<n> names the namespace for
// as long as the pod is served. The socket not there yet is retried with istio/ztunnel's back-off.
import type { Logger } from '../../lib/index.ts';
import { decodeZdsRequest, encodeZdsAck, encodeZdsHello, startZdsRelay } from '../../mesh/zds/index.ts';
import type { ZdsDatagram, ZdsRelay, ZdsRelayConnection, ZdsRequest } from '../../mesh/zds/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { ipv4InNetns } from '../inpod/netns-address.ts';
import type { Ztunnel } from '../ztunnel.ts';

/** istio/ztunnel's default ZDS socket (INPOD_UDS, src/config.rs 809 at 1.28.1), in the chart's mount. */
export const DEFAULT_ZDS_SOCKET = '/var/run/ztunnel/ztunnel.sock';

/** A request waits this long (24 days: setTimeout's limit); the connection's end wakes it sooner. */
const FOREVER_MS = 2 ** 31 - 1;

export interface ZdsClientOptions {
  path: string;
  relayBinary: string;
  instance: string;
  ztunnel: Pick<Ztunnel, 'addWorkload' | 'delWorkload' | 'markSnapshotSent'>;
  log: Logger;
  /**
   * The pod's container ports, for the plaintext capture (:15006 forwards to a pod's one port): ZDS
   * does not carry them, discovery does (its services' target ports); none known, no capture.
   */
  portsOf?: (namespace: string, name: string) => number[];
  /** Reads the pod's address inside its namespace (default: a helper run there). */
  addressOf?: (netnsPath: string) => Promise<string>;
}

export interface ZdsClient {
  /** The uids served now. */
  pods(): string[];
  /** Resolves when the node agent's connection has ended. */
  closed: Promise<void>;
  destroy(): Promise<void>;
}

/** Connects (retried from 10 ms, doubling, to 15 s: workloadmanager.rs), then serves the connection. */
async function connectWithBackoff(options: ZdsClientOptions): Promise<ZdsRelay> {
  for (let delayMs = 10, attempt = 1; ; attempt++, delayMs = Math.min(delayMs * 2, 15_000)) {
    try {
      return await startZdsRelay({
        binary: options.relayBinary,
        mode: 'connect',
        socketPath: options.path,
        keepFds: true,
      });
    } catch (err) {
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

export async function connectZdsAgent(options: ZdsClientOptions): Promise<ZdsClient> {
  const relay = await connectWithBackoff(options);
  const conn = await relay.accept(5_000);
  const addressOf = options.addressOf ?? ipv4InNetns;
  /** uid -> the relay's fd holding its namespace. */
  const held = new Map<string, number>();
  const release = (uid: string): void => {
    const fd = held.get(uid);
    held.delete(uid);
    if (fd !== undefined) relay.release(fd);
  };

  const add = async (request: Extract<ZdsRequest, { kind: 'add' }>, datagram: ZdsDatagram): Promise<void> => {
    const [ns, ...extra] = datagram.fds;
    for (const f of extra) if (f.fd !== undefined) relay.release(f.fd);
    if (!ns?.nsfs || ns.fd === undefined) {
      if (ns?.fd !== undefined) relay.release(ns.fd);
      throw new Error(`pod ${request.uid}: the add came without a network namespace`);
    }
    const info = request.workloadInfo;
    if (!info) {
      relay.release(ns.fd);
      throw new Error('workload_info is required'); // statemanager.rs's refusal
    }
    if (held.has(request.uid)) {
      // A snapshot again after a reconnect: the pod is served already.
      relay.release(ns.fd);
      return;
    }
    const netns = `/proc/${String(relay.pid)}/fd/${String(ns.fd)}`;
    try {
      const podIp = await addressOf(netns);
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
      held.set(request.uid, ns.fd);
    } catch (err) {
      relay.release(ns.fd);
      throw err;
    }
  };

  const apply = async (datagram: ZdsDatagram): Promise<void> => {
    let request: ZdsRequest | undefined;
    try {
      if (datagram.truncated) throw new Error('a truncated message');
      request = decodeZdsRequest(datagram.data);
      if (request.kind === 'add') await add(request, datagram);
      else if (request.kind === 'del') {
        options.ztunnel.delWorkload(request.uid, { networkGone: true });
        release(request.uid);
      } else if (request.kind === 'snapshot-sent') {
        options.ztunnel.markSnapshotSent();
        options.log.info('ready', { instance: options.instance });
      }
      // keep: the pod is still there; nothing to change.
      await conn.send(encodeZdsAck());
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      options.log.error('node agent message failed', { type: request?.kind ?? 'unreadable', error });
      await conn.send(encodeZdsAck(error)).catch(() => undefined);
    }
  };

  const serve = async (c: ZdsRelayConnection): Promise<void> => {
    await c.send(encodeZdsHello());
    for (;;) await apply(await c.receive(FOREVER_MS));
  };
  const closed = serve(conn).catch((err: unknown) => {
    options.log.warn('node agent connection ended', {
      error: err instanceof Error ? err.message : String(err),
    });
  });
  return {
    pods: () => [...held.keys()],
    closed,
    destroy: () => relay.destroy(),
  };
}
