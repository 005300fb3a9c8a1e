// A stand-in for ztunnel's inbound HBONE listener (<pod>:15008) for tests of the real Envoy: HTTP/2
// over mutual TLS 1.3 with a mesh certificate, CONNECT to <ip>:<port> piped to a plain TCP
// connection, and the two ways ztunnel ends a connection during its drain: GOAWAY(NO_ERROR,
// 2^31-1), as hyper's graceful shutdown sends it, and later the socket's close (FIN) at its drain
// deadline. A failed dial to the app is answered 503, as ztunnel's inbound does.
import { once } from 'node:events';
import { constants, createSecureServer } from 'node:http2';
import type { ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import { connect } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { WorkloadCertificate } from '../../pki/index.ts';
import { mtlsContext } from '../../pki/index.ts';
import { createChanges } from './observed.ts';
import type { Observable } from './observed.ts';

export const HBONE_PORT = 15008;
/** The highest stream id: "every stream you started may finish" (RFC 9113 section 6.8). */
const LAST_STREAM_ID = 2 ** 31 - 1;

export interface PeerSession {
  /** 1, 2, ... in the order the proxy opened them. */
  id: number;
  /** The proxy's client certificate's SANs (Node's subjectaltname). */
  clientSan: string;
  goneAway: boolean;
  closed: boolean;
}

export interface PeerTunnel {
  sessionId: number;
  /** The CONNECT's :authority, the pod address and port Envoy asked for. */
  authority: string;
  /** The stream ended (either side). */
  closed: boolean;
}

export interface ConnectPeer extends Observable {
  host: string;
  sessions: readonly PeerSession[];
  tunnels: readonly PeerTunnel[];
  /**
   * GOAWAY(NO_ERROR, 2^31-1) on every open session; resolves with their count once the proxy has
   * read it: a PING sent after the GOAWAY is acknowledged, and frames are read in order.
   */
  goAway(): Promise<number>;
  /** Closes every open session's socket (FIN), streams in flight or not; returns their count. */
  destroySessions(): number;
  /** A silent peer speaks again: answers the CONNECTs it held, and every later one at once. */
  wakeUp(): void;
  close(): Promise<void>;
}

export interface ConnectPeerOptions {
  host: string;
  cert: WorkloadCertificate;
  /** Accept CONNECTs and leave them unanswered until wakeUp() (a pod whose network went silent). */
  silent?: boolean;
}

function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(.+):(\d+)$/.exec(authority);
  return m?.[1] && m[2] ? { host: m[1], port: Number(m[2]) } : undefined;
}

export async function startConnectPeer(options: ConnectPeerOptions): Promise<ConnectPeer> {
  const changes = createChanges();
  const sessions: PeerSession[] = [];
  const tunnels: PeerTunnel[] = [];
  const open = new Map<ServerHttp2Session, PeerSession>();
  let silent = options.silent ?? false;
  const parked: (() => void)[] = [];
  const server = createSecureServer({ ...mtlsContext(options.cert), allowHTTP1: false });

  server.on('session', (session) => {
    const socket = session.socket as TLSSocket;
    const record: PeerSession = {
      id: sessions.length + 1,
      clientSan: socket.getPeerCertificate().subjectaltname ?? '',
      goneAway: false,
      closed: false,
    };
    sessions.push(record);
    open.set(session, record);
    session.on('error', () => undefined); // a proxy gone mid-session: its 'close' follows
    session.once('close', () => {
      record.closed = true;
      open.delete(session);
      changes.notify();
    });
    changes.notify();
  });

  server.on('stream', (stream: ServerHttp2Stream, headers) => {
    stream.on('error', () => undefined); // reset by the proxy: 'close' follows
    const record = open.get(stream.session as ServerHttp2Session);
    const authority = headers[':authority'] ?? '';
    const target = splitAuthority(authority);
    if (headers[':method'] !== 'CONNECT' || !target || !record) {
      stream.respond({ ':status': 405 }, { endStream: true });
      return;
    }
    const tunnel: PeerTunnel = { sessionId: record.id, authority, closed: false };
    tunnels.push(tunnel);
    stream.once('close', () => {
      tunnel.closed = true;
      changes.notify();
    });
    changes.notify();
    const answer = (): void => {
      if (stream.destroyed) return;
      const app = connect(target.port, target.host, () => {
        stream.respond({ ':status': 200 });
        app.pipe(stream);
        stream.pipe(app);
      });
      app.on('error', () => {
        // ztunnel answers a CONNECT whose app connection failed with 503 (inbound.rs).
        if (!stream.headersSent && !stream.destroyed) stream.respond({ ':status': 503 }, { endStream: true });
        else stream.close(constants.NGHTTP2_CONNECT_ERROR);
      });
      stream.once('close', () => app.destroy());
    };
    if (silent) parked.push(answer);
    else answer();
  });
  // A handshake refused (no or a foreign client certificate) ends that socket only.
  server.on('tlsClientError', () => undefined);
  server.listen(HBONE_PORT, options.host);
  await once(server, 'listening');

  return {
    host: options.host,
    sessions,
    tunnels,
    onChange: changes.onChange,
    async goAway() {
      const live = [...open];
      await Promise.all(
        live.map(
          ([session, record]) =>
            new Promise<void>((resolve) => {
              session.goaway(constants.NGHTTP2_NO_ERROR, LAST_STREAM_ID);
              record.goneAway = true;
              // A session closed meanwhile fails the ping: then the proxy has nothing left to read.
              session.ping(() => {
                resolve();
              });
            }),
        ),
      );
      changes.notify();
      return live.length;
    },
    wakeUp() {
      silent = false;
      for (const answer of parked.splice(0)) answer();
    },
    destroySessions() {
      const live = [...open.keys()];
      for (const session of live) session.destroy();
      return live.length;
    },
    async close() {
      for (const session of open.keys()) session.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
