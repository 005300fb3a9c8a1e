import { createSecureServer } from 'node:http2';
import type {
  Http2SecureServer,
  Http2Session,
  IncomingHttpHeaders,
  SecureServerOptions,
  ServerHttp2Stream,
} from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { formatSpiffeId, identityOfCertificate, mtlsContext } from '../../mesh/pki/index.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { logEarlyDeny, openConnectionRecord } from '../telemetry/connection-log.ts';
import { socketKey } from '../telemetry/socket-queues.ts';
import type { ProxyDeps } from '../proxy/proxy-deps.ts';
import { proxyToApp } from './proxy-to-app.ts';

/** How long inbound waits for an unknown local workload before answering 503. */
export const UNKNOWN_WORKLOAD_WAIT_MS = 5000;

export interface HboneInbound {
  server: Http2SecureServer;
  /** Live HTTP/2 sessions (inbound HBONE connections). */
  sessions: Set<Http2Session>;
  /**
   * Drops every HBONE connection as upstream's force_shutdown does: the h2 connection future is
   * dropped (src/proxy/h2/server.rs `serve_connection` returns on force_shutdown), so its TCP socket
   * is closed with no GOAWAY, RST_STREAM or TLS close_notify: the client sees the connection end.
   * Returns how many were open. `reset` (test only: planted regression rst-at-deadline) resets each
   * instead, where a close sends a FIN unless bytes are unread.
   */
  dropConnections(reset?: boolean): number;
  /** Stops reading every HBONE connection, so nothing is answered again; keeps them open. */
  freezeConnections(): number;
  /**
   * From now on every connection gets a GOAWAY after its first stream (istio/ztunnel#1191 option 1
   * while the pod terminates: each new app connection then needs a new HBONE connection).
   */
  goawayAfterEveryStream(): void;
  /**
   * GOAWAY on every session, up to `boundMs` for their streams to end, then each connection's TLS
   * ended (close_notify, then FIN): upstream h2's graceful_shutdown followed by a TLS shutdown.
   * Resolves with how many GOAWAYs and close_notifys were sent.
   */
  endConnections(boundMs: number): Promise<{ goaways: number; closeNotify: number }>;
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
) => HboneTarget | DeniedTarget | undefined | Promise<HboneTarget | DeniedTarget | undefined>;

/** A CONNECT refused before any connection record, with upstream's reason (logged, then 400). */
export interface DeniedTarget {
  deny: string;
}

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
  deps: ProxyDeps,
): HboneInbound {
  // The connection's own destination: a CONNECT must name the pod it arrived on (no open relay).
  return createHboneServer(
    mtlsContext(cert),
    (target, socket) => {
      const local = localIpOf(socket);
      // src/proxy/inbound.rs: Error::IPMismatch, "ip mismatch: {conn dst} != {hbone addr}".
      return target.host === local
        ? { workload, cert }
        : { deny: `ip mismatch: ${String(local)} != ${target.host}` };
    },
    deps,
  );
}

/**
 * What istio/ztunnel 1.28.1's HBONE server announces (src/proxy/h2/server.rs:110-119
 * `serve_connection`, with src/config.rs:726,732-733 defaults: HTTP2_STREAM_WINDOW_SIZE 4 MiB,
 * HTTP2_CONNECTION_WINDOW_SIZE 16 MiB, HTTP2_FRAME_SIZE 1 MiB; max_concurrent_streams 200 and
 * max_header_list_size 64 KiB set there), as its SETTINGS frame showed in the conformance check. Node's defaults (a
 * 64 KiB window, 16 KiB frames, no stream limit) differ; `npm run ztunnel-conformance` compares them.
 */
export const HBONE_SERVER_SETTINGS = {
  initialWindowSize: 4 * 1024 * 1024,
  maxFrameSize: 1024 * 1024,
  maxConcurrentStreams: 200,
  maxHeaderListSize: 65536,
} as const;
const HBONE_CONNECTION_WINDOW = 16 * 1024 * 1024;

/**
 * An HBONE server with the target check left to the caller: `resolveTarget` answers which local pod
 * a CONNECT may reach on this connection (undefined: 400). The in-pod listener above and the
 * node-address listener (node-listener.ts) differ only there and in their TLS options.
 */
export function createHboneServer(
  tls: SecureServerOptions,
  resolveTarget: TargetResolver,
  deps: ProxyDeps,
): HboneInbound {
  const server = createSecureServer({ ...tls, allowHTTP1: false, settings: HBONE_SERVER_SETTINGS });
  const sessions = new Set<Http2Session>();
  // The TLS sockets under the sessions: Http2Session#destroy() would send a final GOAWAY first.
  const sockets = new Set<TLSSocket>();
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session) => {
    // The connection-level window is no SETTING: a WINDOW_UPDATE on stream 0, as h2 sends one.
    session.setLocalWindowSize(HBONE_CONNECTION_WINDOW);
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Streams open per session: a graceful end waits for them.
  const openStreams = new Map<Http2Session, number>();
  let goawayEveryStream = false;
  server.on('stream', (stream, headers) => {
    const session = stream.session;
    if (session) {
      openStreams.set(session, (openStreams.get(session) ?? 0) + 1);
      stream.once('close', () => openStreams.set(session, (openStreams.get(session) ?? 1) - 1));
      // GOAWAY naming this stream as the last: it is served, the next one needs a new connection.
      if (goawayEveryStream && !session.closed) session.close();
    }
    handleConnect(stream, headers, resolveTarget, deps);
  });
  return {
    server,
    sessions,
    dropConnections(reset = false) {
      const open = [...sockets];
      // A TLS socket's reset goes to the TCP socket under it (the TLS wrap's handle cannot reset).
      for (const socket of open)
        if (reset) ((socket as unknown as { _parent?: Socket })._parent ?? socket).resetAndDestroy();
        else socket.destroy();
      return open.length;
    },
    goawayAfterEveryStream() {
      goawayEveryStream = true;
    },
    freezeConnections() {
      const open = [...sockets];
      // The session reads its TLS socket natively (Http2Session consumes the handle), so pause()
      // would not stop it: stop the handle itself, and no frame is read, hence none answered, again.
      for (const socket of open)
        (socket as unknown as { _handle?: { readStop(): number } })._handle?.readStop();
      return open.length;
    },
    async endConnections(boundMs) {
      // session.goaway(), not close(): close() on a session with no stream destroys it at once and
      // the GOAWAY it queued may never be written.
      const live = [...sessions].filter((s) => !s.closed && !s.destroyed);
      for (const session of live) session.goaway();
      const idle = (): boolean => live.every((s) => (openStreams.get(s) ?? 0) === 0);
      const start = performance.now();
      do await new Promise((r) => setTimeout(r, 10));
      while (!idle() && performance.now() - start < boundMs);
      const open = [...sockets].filter((s) => !s.destroyed);
      // end(): TLS close_notify, then the TCP FIN; the client's session ends cleanly.
      for (const socket of open) socket.end();
      return { goaways: live.length, closeNotify: open.length };
    },
  };
}

function handleConnect(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  resolveTarget: TargetResolver,
  deps: ProxyDeps,
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
  resolved: HboneTarget | DeniedTarget | undefined,
  deps: ProxyDeps,
): void {
  if (!resolved || 'deny' in resolved) {
    if (resolved)
      logEarlyDeny(deps.log, {
        srcAddr: `${String(socket.remoteAddress)}:${String(socket.remotePort)}`,
        dstAddr: `${String(localIpOf(socket))}:${String(socket.localPort)}`,
        error: resolved.deny,
      });
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
      // The listener drops (or freezes) the whole HBONE connection; the stream itself gets nothing.
      drop: () => undefined,
      freeze: () => undefined,
      transport: socketKey(socket),
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
