import { constants, createSecureServer } from 'node:http2';
import type {
  Http2SecureServer,
  Http2Session,
  IncomingHttpHeaders,
  SecureServerOptions,
  ServerHttp2Stream,
} from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../lib/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { formatSpiffeId, identityOfCertificate, mtlsContext } from '../../mesh/pki/index.ts';
import type { Identity, WorkloadCertificate } from '../../mesh/pki/index.ts';
import { openConnectionRecord } from '../telemetry/connection-log.ts';
import type { ZtunnelMetrics } from '../telemetry/metrics.ts';
import type { ConnectionTracker } from './connection-tracker.ts';
import { proxyToApp } from './proxy-to-app.ts';

export interface InboundDeps {
  log: Logger;
  metrics: ZtunnelMetrics;
  now: () => number;
  tracker: ConnectionTracker;
  /** Authorization policy; false answers 401. Allows all when absent. */
  authorize?: (peer: Identity | undefined, workload: LocalWorkload) => boolean;
  upstreamConnectTimeoutMs?: number;
  /**
   * With discovery: resolves whether the destination workload is known, waiting up to 5 s for it
   * (a pod the node agent added before the control plane's push reached this ztunnel).
   */
  awaitWorkload?: (ip: string) => Promise<boolean>;
}

/** How long inbound waits for an unknown local workload before answering 503. */
export const UNKNOWN_WORKLOAD_WAIT_MS = 5000;

export interface HboneInbound {
  server: Http2SecureServer;
  /** Live HTTP/2 sessions (inbound HBONE connections). */
  sessions: Set<Http2Session>;
}

/** `10.0.0.5:8080` or `[fd00::5]:8080` -> host and port. */
export function parseAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(authority ?? '');
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

function reply(stream: ServerHttp2Stream, status: number): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond({ ':status': status }, { endStream: true });
}

/** The pod a CONNECT is for, and the certificate its connection was served with. */
export interface HboneTarget {
  workload: LocalWorkload;
  cert: WorkloadCertificate;
}

/**
 * Which local pod a CONNECT on this connection may reach (undefined: 400). May answer later (a
 * pod the control plane has not pushed yet).
 */
export type TargetResolver = (
  target: { host: string; port: number },
  socket: TLSSocket,
) => HboneTarget | undefined | Promise<HboneTarget | undefined>;

/** The address a connection arrived on (its destination), without the IPv4-mapped prefix. */
export function localIpOf(socket: TLSSocket): string | undefined {
  return socket.localAddress?.replace(/^::ffff:/, '');
}

/**
 * The pod's HBONE listener (pod IP:15008): HTTP/2 CONNECT over mTLS, served with the pod's own
 * identity as real in-pod ztunnel does (istio/ztunnel src/proxy/inbound.rs):
 * 400 for anything but a CONNECT to this pod's address, 401 when policy denies, 503 when the app
 * connect fails, and 200 only once the upstream TCP connection is up.
 */
export function createHboneInbound(
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  deps: InboundDeps,
): HboneInbound {
  // The connection's own destination: a CONNECT must name the pod it arrived on (no open relay).
  return createHboneServer(
    mtlsContext(cert),
    (target, socket) => (target.host === localIpOf(socket) ? { workload, cert } : undefined),
    deps,
  );
}

/**
 * An HBONE server with the target check left to the caller: `resolveTarget` answers which local pod
 * a CONNECT may reach on this connection (undefined: 400). The in-pod listener above and the
 * node-address listener (node-listener.ts) differ only there and in their TLS options.
 */
export function createHboneServer(
  tls: SecureServerOptions,
  resolveTarget: TargetResolver,
  deps: InboundDeps,
): HboneInbound {
  const server = createSecureServer({ ...tls, allowHTTP1: false });
  const sessions = new Set<Http2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    handleConnect(stream, headers, resolveTarget, deps);
  });
  return { server, sessions };
}

function handleConnect(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  resolveTarget: TargetResolver,
  deps: InboundDeps,
): void {
  const socket = stream.session?.socket as TLSSocket | undefined;
  const target = parseAuthority(headers[':authority']);
  if (headers[':method'] !== 'CONNECT' || !target || !socket) {
    reply(stream, 400);
    return;
  }
  const resolved = resolveTarget(target, socket);
  if (!(resolved instanceof Promise)) {
    serveConnect(stream, target, socket, resolved, deps);
    return;
  }
  resolved.then(
    (r) => {
      serveConnect(stream, target, socket, r, deps);
    },
    () => {
      reply(stream, 503);
    },
  );
}

function serveConnect(
  stream: ServerHttp2Stream,
  target: { host: string; port: number },
  socket: TLSSocket,
  resolved: HboneTarget | undefined,
  deps: InboundDeps,
): void {
  if (!resolved) {
    reply(stream, 400);
    return;
  }
  const { workload, cert } = resolved;
  const peer = identityOfCertificate(socket.getPeerX509Certificate());
  if (deps.authorize && !deps.authorize(peer, workload)) {
    reply(stream, 401);
    return;
  }
  const complete = openConnectionRecord(
    {
      direction: 'inbound',
      srcAddr: `${socket.remoteAddress ?? '?'}:${String(socket.remotePort ?? 0)}`,
      ...(peer ? { srcIdentity: formatSpiffeId(peer) } : {}),
      dstAddr: `${localIpOf(socket) ?? workload.podIp}:15008`,
      dstHboneAddr: `${target.host}:${String(target.port)}`,
      dstWorkload: workload.name,
      dstNamespace: workload.namespace,
      dstIdentity: cert.spiffeId,
    },
    deps,
  );
  const proceed = (): void => {
    proxyToApp({
      downstream: stream,
      app: { host: workload.appIp, port: target.port },
      deps,
      complete,
      accept: () => {
        stream.respond({ ':status': 200 });
      },
      reject: () => {
        reply(stream, 503);
      },
      reset: () => {
        // RST_STREAM on the tunnel.
        if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
      },
    });
  };
  if (!deps.awaitWorkload) {
    proceed();
    return;
  }
  deps.awaitWorkload(workload.podIp).then(
    (known) => {
      if (known) {
        proceed();
        return;
      }
      reply(stream, 503);
      complete({
        bytesSent: 0,
        bytesRecv: 0,
        error: `destination workload ${workload.podIp} still unknown to discovery`,
      });
    },
    (err: unknown) => {
      reply(stream, 503);
      complete({ bytesSent: 0, bytesRecv: 0, error: String(err) });
    },
  );
}
