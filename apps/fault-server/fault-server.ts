import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../lib/index.ts';
import { route, writeReply } from './routes.ts';
import { GO_HTTPBIN_READ_TIMEOUT_MS } from '../go-httpbin.ts';

export interface FaultServer {
  address: AddressInfo;
  /** Requests being answered right now. */
  inFlight(): number;
  /** When the latest request came, on the server's clock (undefined before the first). */
  lastRequestMs(): number | undefined;
  /**
   * go-httpbin's SIGTERM path (http.Server.Shutdown): close the listener at once, close idle
   * keep-alive connections, let in-flight requests finish (their responses say Connection: close),
   * resolve when the last connection is gone.
   */
  close(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startFaultServer(options: {
  host: string;
  port: number;
  hostname: string;
  clock: Clock;
  /** Calibration mode: serve /fault/reset and /fault/close. */
  faults?: boolean;
  /**
   * How long a keep-alive connection may sit idle before the server closes it: go-httpbin's 5 s
   * unless a test needs an upstream that never closes one while it runs.
   */
  idleTimeoutMs?: number;
}): Promise<FaultServer> {
  let shuttingDown = false;
  let inFlight = 0;
  let lastRequestMs: number | undefined;
  const server: Server = createServer((req, res) => {
    inFlight++;
    lastRequestMs = options.clock.now();
    // Only a /delay needs to hear that the client went away: the signal is made when asked for.
    let abort: AbortController | undefined;
    res.on('close', () => {
      inFlight--;
      abort?.abort(new Error('client went away'));
    });
    const context = {
      hostname: options.hostname,
      faults: options.faults ?? false,
      get signal() {
        abort ??= new AbortController();
        return abort.signal;
      },
      sleep: (ms: number, signal: AbortSignal) => options.clock.sleep(ms, signal),
    };
    const reply = route(req, context);
    if (!(reply instanceof Promise)) {
      writeReply(res, reply, shuttingDown);
      return;
    }
    reply.then(
      (r) => {
        writeReply(res, r, shuttingDown);
      },
      () => {
        // Only an aborted /delay rejects: the client is gone, nothing to answer.
        res.destroy();
      },
    );
  });
  // go-httpbin's server (mccutchen/go-httpbin httpbin/cmd/cmd.go): ReadTimeout 5 s, ReadHeaderTimeout
  // 1 s, no IdleTimeout, so Go closes a keep-alive connection idle for 5 s (IdleTimeout falls back to
  // ReadTimeout). A pooled client connection left idle that long is closed by the app: cold
  // connections drift away from a draining ztunnel, hot ones stay.
  server.keepAliveTimeout = options.idleTimeoutMs ?? GO_HTTPBIN_READ_TIMEOUT_MS;
  server.keepAliveTimeoutBuffer = 0;
  server.requestTimeout = GO_HTTPBIN_READ_TIMEOUT_MS;
  server.headersTimeout = 1000;
  server.listen({ host: options.host, port: options.port });
  await once(server, 'listening');
  const closed = once(server, 'close').then(() => undefined);
  return {
    address: server.address() as AddressInfo,
    inFlight: () => inFlight,
    lastRequestMs: () => lastRequestMs,
    close: () => {
      if (!shuttingDown) {
        shuttingDown = true;
        server.close();
        server.closeIdleConnections();
      }
      return closed;
    },
    destroy: () => {
      shuttingDown = true;
      server.close();
      server.closeAllConnections();
      return closed;
    },
  };
}
