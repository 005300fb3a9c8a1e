import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { startAcceptors } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { DiscoveryState, WorkloadEntry } from '../discovery/index.ts';
import { formatAccessLog } from './access-log.ts';
import { pickLeastRequest } from './endpoint-picker.ts';
import { LOCAL_REPLIES, withRetriesExhausted } from './local-reply.ts';
import type { LocalReply } from './local-reply.ts';
import { isRetriable, retryBackoffMs } from './retry-policy.ts';
import type { AttemptOutcome, RetryPolicy } from './retry-policy.ts';
import { connectionInfo, countRequest, UpstreamAgent, UpstreamConnectError } from './upstream-agent.ts';
import type { UpstreamConnectionLimits, UpstreamMode } from './upstream-agent.ts';

/** Response header carrying the gateway's response flags (what k6 records as `flag`). */
export const RESPONSE_FLAGS_HEADER = 'x-response-flags';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

export interface GatewayOptions {
  host: string;
  port: number;
  clock: Clock;
  discovery: DiscoveryState;
  /** The one route: every request goes to this service (`namespace/name`) and service port. */
  route: { service: string; port: number };
  /** How to reach HBONE endpoints; TCP endpoints (outside the mesh) are always reached plainly. */
  hbone?: Extract<UpstreamMode, { kind: 'hbone' }>;
  retry: RetryPolicy;
  limits: UpstreamConnectionLimits;
  log: (line: string) => void;
  /**
   * Listen sockets of this gateway (process), all SO_REUSEPORT and exclusive: every Envoy worker has
   * its own listen socket on the same address and the kernel spreads connections over them (Envoy's
   * `enable_reuse_port`, the default on Linux); more than one per worker lets a Node process accept a
   * connection storm as Envoy does (lib/acceptors.ts). Default DEFAULT_ACCEPTOR_SOCKETS.
   */
  acceptorSockets?: number;
}

export interface Gateway {
  address: AddressInfo;
  /** Upstream connections opened so far (all endpoints). */
  stats(): { requests: number; localReplies: number };
  close(): Promise<void>;
}

interface Endpoint {
  key: string;
  entry: WorkloadEntry;
  targetPort: number;
}

type Attempt = {
  outcome: AttemptOutcome;
  tunnelRejected?: boolean;
  res?: IncomingMessage;
  socket?: Duplex;
  /** How long its upstream connection had been idle in the pool before this attempt. */
  idleBeforeMs?: number;
  /** Why it failed, as Envoy's %UPSTREAM_TRANSPORT_FAILURE_REASON% would say (errno or message). */
  failure?: string;
};

function forwardHeaders(
  headers: IncomingHttpHeaders,
  remote: string | undefined,
  attempt: number,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  out['x-forwarded-for'] = remote ?? '';
  out['x-envoy-attempt-count'] = String(attempt);
  return out;
}

/**
 * The Envoy-like ingress gateway: HTTP/1.1 downstream, one route to a service, endpoints from the
 * control plane (HEALTHY only), LEAST_REQUEST, per-endpoint HTTP/1.1 pools over plain TCP or HBONE,
 * Envoy's retry semantics and local replies (503 UF / UC / URX / UH), an access log line per request.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { clock, retry } = options;
  const agents = new Map<string, UpstreamAgent>();
  const active = new Map<string, number>();
  const counters = { requests: 0, localReplies: 0 };

  const agentFor = (ep: Endpoint): UpstreamAgent => {
    let agent = agents.get(ep.key);
    if (!agent) {
      const tunnelAddress = ep.entry.tunnelAddress;
      const mode: UpstreamMode =
        ep.entry.protocol === 'HBONE' && options.hbone
          ? { ...options.hbone, ...(tunnelAddress ? { tunnelAddress } : {}) }
          : { kind: 'plain' };
      agent = new UpstreamAgent({ mode, limits: options.limits, now: () => clock.now() });
      agents.set(ep.key, agent);
    }
    return agent;
  };

  const [routeNamespace = '', routeName = ''] = options.route.service.split('/');
  // The cluster's healthy hosts change only with a discovery push (EDS): computed once per version.
  let healthy: { revision: number; endpoints: Endpoint[] } | undefined;
  const healthyEndpoints = (): Endpoint[] => {
    const revision = options.discovery.revision;
    if (healthy?.revision === revision) return healthy.endpoints;
    const svc = options.discovery.serviceByName(routeNamespace, routeName);
    const targetPort =
      svc?.ports.find((p) => p.port === options.route.port)?.targetPort ?? options.route.port;
    const endpoints = svc
      ? options.discovery
          .endpointsOf(svc)
          .filter((w) => w.status === 'HEALTHY')
          .map((w) => ({ key: `${w.protocol}:${w.podIp}`, entry: w, targetPort }))
      : [];
    healthy = { revision, endpoints };
    return endpoints;
  };

  const attemptOnce = (
    req: IncomingMessage,
    res: ServerResponse,
    ep: Endpoint,
    attempt: number,
  ): Promise<Attempt> =>
    new Promise<Attempt>((resolveAttempt) => {
      // Envoy resets the upstream request when the downstream goes away before it is answered
      // (a client timeout, k6's included): an HTTP/1.1 request is cancelled by closing its connection.
      const cancel = (): void => {
        if (res.writableFinished) return;
        upstream.destroy(new Error('downstream disconnected'));
        // Still waiting for a connection (a CONNECT on an HBONE connection whose peer went silent
        // never answers): Node's request stays quiet until one comes, so the attempt ends here.
        if (!socket) resolve({ outcome: { kind: 'reset' }, failure: 'downstream disconnected' });
      };
      const resolve = (a: Attempt): void => {
        res.off('close', cancel);
        resolveAttempt(a);
      };
      const upstream = request({
        agent: agentFor(ep),
        host: ep.entry.podIp,
        port: ep.targetPort,
        method: req.method,
        path: req.url,
        headers: forwardHeaders(req.headers, req.socket.remoteAddress, attempt),
      });
      let socket: Duplex | undefined;
      let idleBeforeMs: number | undefined;
      upstream.on('socket', (s: Duplex) => {
        socket = s;
        idleBeforeMs = countRequest(s, clock.now());
      });
      upstream.on('response', (res) => {
        resolve({
          outcome: { kind: 'response', status: res.statusCode ?? 0 },
          res,
          ...(socket ? { socket } : {}),
          ...(idleBeforeMs === undefined ? {} : { idleBeforeMs }),
        });
      });
      upstream.on('error', (err) => {
        const failure = (err as NodeJS.ErrnoException).code ?? err.message;
        const onSocket = socket ? { socket, ...(idleBeforeMs === undefined ? {} : { idleBeforeMs }) } : {};
        if (err instanceof UpstreamConnectError)
          resolve(
            err.kind === 'connect-failure'
              ? { outcome: { kind: 'connect-failure' }, failure, ...onSocket }
              : { outcome: { kind: 'reset' }, tunnelRejected: true, failure, ...onSocket },
          );
        else resolve({ outcome: { kind: 'reset' }, failure, ...onSocket });
      });
      res.once('close', cancel);
      upstream.end();
    });

  const localReply = (res: ServerResponse, reply: LocalReply): void => {
    counters.localReplies++;
    res
      .writeHead(reply.status, {
        'content-type': 'text/plain',
        [RESPONSE_FLAGS_HEADER]: reply.flags.join(','),
      })
      .end(reply.body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    counters.requests++;
    const startMs = clock.now();
    const tried = new Set<string>();
    const downstreamGone = (): boolean => res.destroyed;
    let last: { attempt: Attempt; ep: Endpoint } | undefined;
    let attempts = 0;
    for (let retryNo = 0; retryNo <= retry.numRetries; retryNo++) {
      if (retryNo > 0) await clock.sleep(retryBackoffMs(retryNo));
      if (downstreamGone()) break; // the client went away during the back-off
      const ep = pickLeastRequest(healthyEndpoints(), (h) => active.get(h.key) ?? 0, tried);
      if (!ep) break;
      tried.add(ep.key);
      attempts++;
      active.set(ep.key, (active.get(ep.key) ?? 0) + 1);
      const attempt = await attemptOnce(req, res, ep, attempts).finally(() =>
        active.set(ep.key, (active.get(ep.key) ?? 1) - 1),
      );
      last = { attempt, ep };
      if (!isRetriable(retry, attempt.outcome) || retryNo === retry.numRetries || downstreamGone()) break;
      attempt.res?.resume();
    }
    const logEntry = {
      startWallMs: startMs + clock.wallOffsetMs,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      attempts,
      upstream: last ? `${last.ep.entry.podIp}:${String(last.ep.targetPort)}` : '',
    };
    const info = connectionInfo(last?.attempt.socket);
    const idle = last?.attempt.idleBeforeMs;
    const conn = info
      ? {
          connectionId: info.id,
          connectionAgeMs: clock.now() - info.openedAtMs,
          ...(idle === undefined ? {} : { connectionIdleMs: idle }),
        }
      : {};
    const upstreamRes = last?.attempt.res;
    if (!last || !upstreamRes) {
      const base = !last
        ? LOCAL_REPLIES.noHealthyUpstream
        : last.attempt.outcome.kind === 'connect-failure' || last.attempt.tunnelRejected
          ? LOCAL_REPLIES.connectFailure
          : LOCAL_REPLIES.connectionTermination;
      const reply = withRetriesExhausted(base, attempts - 1);
      // DC: the downstream went away unanswered; Envoy logs response code 0 and that flag.
      const gone = res.destroyed;
      if (!gone) localReply(res, reply);
      options.log(
        formatAccessLog({
          ...logEntry,
          ...conn,
          status: gone ? 0 : reply.status,
          flags: gone ? ['DC'] : reply.flags,
          durationMs: clock.now() - startMs,
          ...(last?.attempt.failure ? { upstreamFailure: last.attempt.failure } : {}),
        }),
      );
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(upstreamRes.headers))
      if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    headers['x-envoy-upstream-service-time'] = String(Math.round(clock.now() - startMs));
    res.writeHead(upstreamRes.statusCode ?? 502, headers);
    upstreamRes.pipe(res);
    const upstreamEnd = { cut: false };
    const cut = (): void => {
      upstreamEnd.cut = true;
      res.destroy(); // reset after headers: the client sees the connection end
    };
    upstreamRes.once('error', cut);
    upstreamRes.once('aborted', cut);
    await once(res, 'close');
    if (!res.writableFinished && !upstreamEnd.cut) upstreamRes.destroy(); // the client left mid-body
    options.log(
      formatAccessLog({
        ...logEntry,
        ...conn,
        status: upstreamRes.statusCode ?? 0,
        flags: res.writableFinished ? [] : upstreamEnd.cut ? ['UPE'] : ['DC'],
        durationMs: clock.now() - startMs,
      }),
    );
  };

  const server: Server = createServer((req, res) => {
    req.resume();
    void handle(req, res);
  });
  // Envoy's downstream HTTP/1.1: keep-alive until the client closes (idle timeout 1 h), no request timeout.
  server.keepAliveTimeout = 3_600_000;
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.maxRequestsPerSocket = 0;
  // The HTTP server gets its connections from the acceptors and never listens itself, so Node's own
  // connection tracking (started on 'listening') is off: the gateway keeps the set.
  const downstream = new Set<Socket>();
  const acceptors = await startAcceptors({
    host: options.host,
    port: options.port,
    backlog: 4096,
    exclusive: true,
    ...(options.acceptorSockets === undefined ? {} : { count: options.acceptorSockets }),
    onConnection: (socket) => {
      downstream.add(socket);
      socket.once('close', () => downstream.delete(socket));
      server.emit('connection', socket);
    },
  });

  return {
    address: acceptors.address,
    stats: () => ({ ...counters }),
    close: async () => {
      await Promise.resolve();
      acceptors.close();
      for (const socket of downstream) socket.destroy();
      for (const agent of agents.values()) agent.destroy();
      options.hbone?.pool.destroy();
    },
  };
}
