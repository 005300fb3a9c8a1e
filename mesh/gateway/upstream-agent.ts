import { Agent } from 'node:http';
import type { AgentOptions } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { hboneAddressOf } from '../discovery/index.ts';
import type { HbonePool } from '../hbone/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';

/** Why an upstream connection could not be had: Envoy's reset reasons for a connection attempt. */
export class UpstreamConnectError extends Error {
  readonly kind: 'connect-failure' | 'tunnel-rejected';
  constructor(kind: UpstreamConnectError['kind'], message: string) {
    super(message);
    this.name = 'UpstreamConnectError';
    this.kind = kind;
  }
}

export type UpstreamMode =
  | { kind: 'plain' }
  | {
      kind: 'hbone';
      pool: HbonePool;
      cert: WorkloadCertificate;
      srcIdentity: string;
      dstIdentity: string;
      /** The endpoint's HBONE address when not pod IP:15008 (its node's ztunnel, hboneAddressOf). */
      tunnelAddress?: string;
    };

export interface UpstreamConnectionLimits {
  /** A connection not up by then is a connect failure (Istio's cluster connect_timeout: 10 s). */
  connectTimeoutMs: number;
  /** Close an upstream connection idle this long (Envoy common_http_protocol_options.idle_timeout). */
  idleTimeoutMs: number;
  /** Close a connection this old once it is idle (max_connection_duration); 0 = no limit. */
  maxConnectionDurationMs: number;
  /** Requests on one connection before it is closed (max_requests_per_connection); 0 = no limit. */
  maxRequestsPerConnection: number;
}

/** What the pool calls on an idle connection: a net.Socket's, or the CONNECT stream's stand-ins. */
type PooledConnection = Duplex & {
  setKeepAlive(enable: boolean, initialDelayMs: number): unknown;
  unref(): unknown;
  setTimeout(ms: number): unknown;
};

interface ConnectionState {
  openedAtMs: number;
  requests: number;
  id: number;
  /** When the pool last took it back idle (its previous response read); unset while never idle. */
  idleSinceMs?: number;
}

const state = new WeakMap<Duplex, ConnectionState>();
let nextConnectionId = 0;

/** The upstream connection a request ran on: its id and age (for the access log). */
export function connectionInfo(socket: Duplex | null | undefined): ConnectionState | undefined {
  return socket ? state.get(socket) : undefined;
}

/**
 * One endpoint's HTTP/1.1 connection pool, as Envoy keeps per upstream host. In plain mode a
 * connection is TCP to pod IP:port (captured by the destination's ztunnel); in HBONE mode it is a
 * CONNECT stream on a pooled HTTP/2 connection to pod IP:15008. Node's http.Agent does the HTTP/1.1
 * pooling; this class supplies the connections and the limits Envoy applies to them.
 */
export class UpstreamAgent extends Agent {
  readonly #mode: UpstreamMode;
  readonly #limits: UpstreamConnectionLimits;
  readonly #now: () => number;

  constructor(options: { mode: UpstreamMode; limits: UpstreamConnectionLimits; now: () => number }) {
    // Envoy's HTTP/1.1 pool: no cap on connections (Istio sets the circuit breakers to 2^32-1),
    // the most recently used idle connection first, and no cap on idle ones (Node's Agent would
    // close free sockets beyond maxFreeSockets, 256 per host by default; Envoy never does).
    const agentOptions: AgentOptions = {
      keepAlive: true,
      maxSockets: Infinity,
      maxFreeSockets: Infinity,
      scheduling: 'lifo',
    };
    if (options.limits.idleTimeoutMs > 0) agentOptions.timeout = options.limits.idleTimeoutMs;
    super(agentOptions);
    this.#mode = options.mode;
    this.#limits = options.limits;
    this.#now = options.now;
  }

  override createConnection(
    options: { host?: string | null; port?: number | string | null },
    callback: (err: Error | null, socket?: Duplex) => void,
  ): Duplex | undefined {
    const host = options.host ?? '';
    const port = Number(options.port);
    const opened = (socket: Duplex): void => {
      state.set(socket, { openedAtMs: this.#now(), requests: 0, id: ++nextConnectionId });
      callback(null, socket);
    };
    if (this.#mode.kind === 'plain') {
      const socket = connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        callback(
          new UpstreamConnectError(
            'connect-failure',
            `connect timeout after ${String(this.#limits.connectTimeoutMs)} ms`,
          ),
        );
      }, this.#limits.connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        opened(socket);
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        if (!state.has(socket)) callback(new UpstreamConnectError('connect-failure', err.message));
      });
      return undefined;
    }
    const mode = this.#mode;
    mode.pool
      .connect(
        {
          srcIdentity: mode.srcIdentity,
          dstIdentity: mode.dstIdentity,
          dstAddr: hboneAddressOf({ ...mode, podIp: host }),
        },
        mode.cert,
        `${host}:${String(port)}`,
      )
      .then(
        (tunnel) => {
          if (tunnel.status === 200) {
            // http.Agent treats its connections as sockets; a CONNECT stream lacks these no-ops.
            // A TCP socket closes when the peer's FIN arrives (allowHalfOpen false); an HTTP/2 stream
            // would stay half open, and the agent would reuse it for a request nobody reads.
            tunnel.stream.once('end', () => tunnel.stream.end());
            Object.assign(tunnel.stream, {
              setKeepAlive: () => tunnel.stream,
              setNoDelay: () => tunnel.stream,
              ref: () => tunnel.stream,
              unref: () => tunnel.stream,
            });
            opened(tunnel.stream);
          } else {
            tunnel.stream.destroy();
            callback(
              new UpstreamConnectError(
                'tunnel-rejected',
                `CONNECT ${host}:${String(port)} answered ${String(tunnel.status)}`,
              ),
            );
          }
        },
        (err: unknown) => {
          callback(
            new UpstreamConnectError('connect-failure', err instanceof Error ? err.message : String(err)),
          );
        },
      );
    return undefined;
  }

  /** Counts requests per connection; refuses reuse past max requests or max connection duration. */
  override keepSocketAlive(socket: Duplex): boolean {
    const info = state.get(socket);
    const limits = this.#limits;
    if (info) {
      info.idleSinceMs = this.#now();
      if (limits.maxRequestsPerConnection > 0 && info.requests >= limits.maxRequestsPerConnection)
        return false;
      if (
        limits.maxConnectionDurationMs > 0 &&
        this.#now() - info.openedAtMs >= limits.maxConnectionDurationMs
      )
        return false;
    }
    // Not Node's Agent.keepSocketAlive: it reads the response's `Keep-Alive: timeout=N` hint and
    // closes the idle connection a second before N. Envoy ignores that header (envoyproxy/envoy#28105,
    // and RFC 7230 dropped its parameters); its only idle limit is the cluster's idle_timeout, 1 h by
    // default (envoyproxy/envoy docs/root/faq/configuration/timeouts.rst, "Connection timeouts"). So a
    // server that closes idle connections sooner (go-httpbin after 5 s) races a request Envoy puts on
    // one at that moment: 503 UC, the keep-alive race Istio's DestinationRule idleTimeout exists for.
    // What else Node's does: TCP keep-alive probes, and an idle pooled connection keeps no process up.
    // A TCP socket, or a CONNECT stream with these as no-ops (createConnection) but its own setTimeout.
    const pooled = socket as PooledConnection;
    pooled.setKeepAlive(true, 1000); // Node's keepAliveMsecs default
    pooled.unref();
    pooled.setTimeout(limits.idleTimeoutMs);
    return true;
  }
}

/**
 * Marks one more request on the connection a request got (called when it is assigned one) and
 * returns how long the connection had sat idle in the pool before it (0 for a new one): a request
 * put on a connection idle as long as the server's keep-alive timeout races the server's close.
 */
export function countRequest(socket: Duplex, nowMs: number): number {
  const info = state.get(socket);
  if (!info) return 0;
  info.requests++;
  const idle = info.idleSinceMs === undefined ? 0 : nowMs - info.idleSinceMs;
  delete info.idleSinceMs;
  return idle;
}
