import type { Server } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { listenInNetns } from '../inpod/netns-listeners.ts';
import { HBONE_PORT, INBOUND_CAPTURE_PORT, OUTBOUND_CAPTURE_PORT } from '../../mesh/workload.ts';
import { startNetnsConnector } from '../inpod/netns-connector.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { createConnectionTracker } from '../proxy/connection-tracker.ts';
import type { ConnectionTracker, DropCounts } from '../proxy/connection-tracker.ts';
import { createHboneInbound } from './hbone-inbound.ts';
import type { HboneInbound } from './hbone-inbound.ts';
import type { ProxyDeps } from '../proxy/proxy-deps.ts';
import { createPlaintextInbound } from './plaintext-inbound.ts';
import { createOutboundCapture } from '../outbound/outbound-capture.ts';
import type { OutboundDeps } from '../outbound/outbound-capture.ts';

/** The largest HTTP/2 stream id (RFC 9113 section 5.1.1): "no stream is refused yet". */
const MAX_STREAM_ID = 2 ** 31 - 1;

/**
 * A set of bound inbound listeners and the connections they accepted: what drain and DelWorkload
 * act on. All bound with SO_REUSEPORT (Node >= 22.12 `reusePort`) so a new ztunnel can bind the same
 * addresses before the old one lets go: the upgrade handoff.
 */
export interface InboundListeners {
  tracker: ConnectionTracker;
  /** The HBONE server: its live sessions (for inspection and GOAWAY). */
  readonly hbone: HboneInbound;
  /** Stops accepting on every listener and sends GOAWAY on every HBONE connection; returns at once. */
  stopAccepting(): void;
  /** GOAWAY on every open HBONE connection; listeners stay open. Returns how many got one. */
  sendGoaway(): number;
  /**
   * Listeners closed (no GOAWAY: upstream sends none on this path) and every connection dropped at
   * once: the HBONE connections first, so no tunnel ends gracefully as its app socket closes, then
   * the plaintext ones and the app sockets (connection-tracker.ts says what dropping means).
   * Returns how many tunnels and plaintext connections there were and how many had data in flight.
   */
  destroy(reason: string, reset?: boolean): DropCounts;
  /**
   * The same drop where the pod's network is already gone (upstream's DelWorkload today): nothing
   * reaches a peer, neither a FIN nor a RST. Emulated by stopping every downstream socket, HBONE
   * and plaintext, from reading (so nothing is ever answered again, a PING included) and keeping it
   * open: its peer sees a connection that has gone silent, as it would with the veth deleted.
   */
  freeze(reason: string): DropCounts;
  /**
   * istio/ztunnel#1191 option 2 at the CNI DEL hook, before the network goes: listeners closed,
   * GOAWAY on every HBONE connection, up to `boundMs` for its streams to end, then TLS close_notify
   * and FIN on each (a graceful end); what is left is dropped. Resolves with how many close_notify
   * were sent.
   */
  drainGracefully(boundMs: number): Promise<{ goaways: number; closeNotify: number }>;
}

/**
 * One pod's listeners on the pod's own address: HBONE (:15008), the plaintext capture of each
 * container port and, given discovery, the outbound capture (:15001): ztunnel's in-pod mode.
 */
export interface PodListeners extends InboundListeners {
  workload: LocalWorkload;
  /** /proc/<pid> of a process in the pod's namespace, whose net/tcp is the pod's socket table. */
  socketTableDir?: string;
}

/** Listen backlog of every capture listener (docs/architecture.md, Components: upgrade handoff, backlog 128). */
export const LISTEN_BACKLOG = 128;

export async function startPodListeners(
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  deps: Omit<ProxyDeps, 'tracker'>,
  /** With discovery and a pool, the pod also gets its outbound capture (:15001). */
  outbound?: Pick<OutboundDeps, 'discovery' | 'pool' | 'random'>,
): Promise<PodListeners> {
  if (workload.inpodCapture) return startCapturedPodListeners(workload, cert, deps);
  const tracker = createConnectionTracker();
  const inboundDeps: ProxyDeps = { ...deps, tracker };
  const hbone = createHboneInbound(workload, cert, inboundDeps);
  const servers: [Server, number][] = [[hbone.server, HBONE_PORT]];
  for (const port of workload.ports) {
    servers.push([createPlaintextInbound(workload, port, cert, inboundDeps), port]);
  }
  if (outbound) {
    servers.push([
      createOutboundCapture(workload, cert, { ...inboundDeps, ...outbound }),
      OUTBOUND_CAPTURE_PORT,
    ]);
  }
  const socketTableDir = workload.netns?.match(/^(\/proc\/\d+)\/ns\/net$/)?.[1];
  return {
    workload,
    ...(socketTableDir ? { socketTableDir } : {}),
    ...(await bindInbound(servers, workload.podIp, hbone, tracker, workload.netns)),
  };
}

/**
 * A pod under istio-cni's rules (kind's node agent): HBONE on :15008 and the redirected plaintext
 * on :15006, bound inside the pod's namespace, the app reached from inside it too. Upstream reads
 * a redirected connection's original port with SO_ORIGINAL_DST; Node cannot, so :15006 serves a pod
 * with one container port (a pod with several gets no plaintext capture, and says so in the log).
 * The outbound capture (:15001) is not bound: it needs the original destination too.
 */
async function startCapturedPodListeners(
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  deps: Omit<ProxyDeps, 'tracker'>,
): Promise<PodListeners> {
  const netns = workload.netns;
  if (!netns) throw new Error(`pod ${workload.name}: in-pod capture without a network namespace`);
  const connector = startNetnsConnector(netns);
  const tracker = createConnectionTracker();
  const inboundDeps: ProxyDeps = { ...deps, tracker, connectApp: connector.connect };
  const hbone = createHboneInbound(workload, cert, inboundDeps);
  const servers: [Server, number][] = [[hbone.server, HBONE_PORT]];
  const [only, ...more] = workload.ports;
  if (only !== undefined && more.length === 0)
    servers.push([createPlaintextInbound(workload, only, cert, inboundDeps), INBOUND_CAPTURE_PORT]);
  else
    deps.log.warn('no plaintext capture: SO_ORIGINAL_DST is out of reach', {
      name: workload.name,
      ports: workload.ports.join(','),
    });
  let bound: InboundListeners;
  try {
    bound = await bindInbound(servers, workload.podIp, hbone, tracker, netns);
  } catch (err) {
    connector.close();
    throw err;
  }
  return {
    ...bound,
    workload,
    ...(connector.pid ? { socketTableDir: `/proc/${String(connector.pid)}` } : {}),
    destroy: (reason, reset) => {
      const dropped = bound.destroy(reason, reset);
      connector.close();
      return dropped;
    },
    freeze: (reason) => {
      const dropped = bound.freeze(reason);
      connector.close();
      return dropped;
    },
  };
}

/**
 * Binds every server on `host` (all or none) and returns the handle drain and DelWorkload use. With
 * `netnsPath` (a pod in a network namespace of its own) the sockets are made inside that namespace,
 * where the pod's address lives, as upstream's in-pod listeners are.
 */
export async function bindInbound(
  servers: [Server, number][],
  host: string,
  hbone: HboneInbound,
  tracker: ConnectionTracker,
  netnsPath?: string,
): Promise<InboundListeners> {
  try {
    if (netnsPath) {
      const ports = servers.map(([, port]) => port);
      const adopted: Promise<void>[] = [];
      await listenInNetns(netnsPath, { host, ports, backlog: LISTEN_BACKLOG }, (port, carrier) => {
        const server = servers.find(([, p]) => p === port)?.[0];
        if (server) adopted.push(adopt(server, carrier));
        else carrier.close();
      });
      await Promise.all(adopted);
    } else await Promise.all(servers.map(([server, port]) => listen(server, host, port)));
  } catch (err) {
    for (const [server] of servers) server.close();
    throw err;
  }
  let accepting = true;
  const closeListeners = (): void => {
    if (!accepting) return;
    accepting = false;
    for (const [server] of servers) {
      // Http2SecureServer#close() would also close every session (a GOAWAY on each): only the listen
      // socket closes here; sendGoaway says it when that is meant.
      if (server === hbone.server) TlsServer.prototype.close.call(server);
      else server.close();
    }
  };
  const sendGoaway = (): number => {
    // As the h2 crate's graceful_shutdown (called at istio/ztunnel 1.28.1 src/proxy/h2/server.rs:169;
    // the frames seen on the wire, the h2 crate's own source not read): a GOAWAY naming the largest
    // stream id, a PING, and once it is answered the GOAWAY naming the last stream served (RFC 9113
    // section 6.8); session.close() sends that one and ends the session once its
    // streams have. Seen from the client with istio/ztunnel 1.28.1: [2^31-1, then the real last].
    const open = [...hbone.sessions].filter((session) => !session.closed);
    for (const session of open) {
      session.goaway(0, MAX_STREAM_ID);
      const sent = session.ping(() => {
        if (!session.closed && !session.destroyed) session.close();
      });
      if (!sent) session.close();
    }
    return open.length;
  };
  const stopAccepting = (): void => {
    if (!accepting) return;
    closeListeners();
    sendGoaway();
  };
  return {
    tracker,
    hbone,
    stopAccepting,
    sendGoaway,
    destroy(reason, reset) {
      closeListeners();
      hbone.dropConnections(reset);
      return tracker.dropAll(reason);
    },
    freeze(reason) {
      closeListeners();
      hbone.freezeConnections();
      return tracker.freezeAll(reason);
    },
    async drainGracefully(boundMs) {
      closeListeners();
      return hbone.endConnections(boundMs);
    },
  };
}

/**
 * The server takes over a listening socket made elsewhere (listenInNetns), keeping our backlog; the
 * handle changes owner synchronously, so the carrier accepts nothing from here on.
 */
function adopt(server: Server, carrier: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(carrier, LISTEN_BACKLOG, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, reusePort: true, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
