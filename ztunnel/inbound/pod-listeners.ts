import type { Server } from 'node:net';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { HBONE_PORT, OUTBOUND_CAPTURE_PORT } from '../../mesh/workload.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { createConnectionTracker } from './connection-tracker.ts';
import type { ConnectionTracker } from './connection-tracker.ts';
import { createHboneInbound } from './hbone-inbound.ts';
import type { HboneInbound, InboundDeps } from './hbone-inbound.ts';
import { createPlaintextInbound } from './plaintext-inbound.ts';
import { createOutboundCapture } from '../outbound/outbound-capture.ts';
import type { OutboundDeps } from '../outbound/outbound-capture.ts';

/**
 * A set of bound inbound listeners and the connections they accepted: what drain and DelWorkload
 * act on. All bound with SO_REUSEPORT (Node >= 22.12 `reusePort`) so a new ztunnel can bind the same
 * addresses before the old one lets go: the upgrade handoff.
 */
export interface InboundListeners {
  tracker: ConnectionTracker;
  /** Stops accepting on every listener and sends GOAWAY on every HBONE connection; returns at once. */
  stopAccepting(): void;
  /** GOAWAY on every open HBONE connection; listeners stay open. Returns how many got one. */
  sendGoaway(): number;
  /** stopAccepting, then force-close every connection (RST / RST_STREAM). Returns how many. */
  destroy(reason: string): number;
}

/**
 * One pod's listeners on the pod's own address: HBONE (:15008), the plaintext capture of each
 * container port and, given discovery, the outbound capture (:15001): ztunnel's in-pod mode.
 */
export interface PodListeners extends InboundListeners {
  workload: LocalWorkload;
}

/** Listen backlog of every capture listener (design.md section 4: backlog 128). */
export const LISTEN_BACKLOG = 128;

export async function startPodListeners(
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  deps: Omit<InboundDeps, 'tracker'>,
  /** With discovery and a pool, the pod also gets its outbound capture (:15001). */
  outbound?: Pick<OutboundDeps, 'discovery' | 'pool' | 'random'>,
): Promise<PodListeners> {
  const tracker = createConnectionTracker();
  const inboundDeps: InboundDeps = { ...deps, tracker };
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
  return { workload, ...(await bindInbound(servers, workload.podIp, hbone, tracker)) };
}

/** Binds every server on `host` (all or none) and returns the handle drain and DelWorkload use. */
export async function bindInbound(
  servers: [Server, number][],
  host: string,
  hbone: HboneInbound,
  tracker: ConnectionTracker,
): Promise<InboundListeners> {
  try {
    await Promise.all(servers.map(([server, port]) => listen(server, host, port)));
  } catch (err) {
    for (const [server] of servers) server.close();
    throw err;
  }
  let accepting = true;
  const sendGoaway = (): number => {
    // session.close(): GOAWAY now, the session ends once its streams have (RFC 9113 section 6.8).
    const open = [...hbone.sessions].filter((session) => !session.closed);
    for (const session of open) session.close();
    return open.length;
  };
  const stopAccepting = (): void => {
    if (!accepting) return;
    accepting = false;
    for (const [server] of servers) server.close();
    sendGoaway();
  };
  return {
    tracker,
    stopAccepting,
    sendGoaway,
    destroy(reason) {
      stopAccepting();
      const n = tracker.forceCloseAll(reason);
      for (const session of hbone.sessions) session.destroy();
      return n;
    },
  };
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
