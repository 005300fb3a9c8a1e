import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../lib/index.ts';
import { route, writeReply } from './routes.ts';

export interface HttpbinServer {
  address: AddressInfo;
  /** Requests being answered right now. */
  inFlight(): number;
  /**
   * go-httpbin's SIGTERM path (http.Server.Shutdown): close the listener at once, close idle
   * keep-alive connections, let in-flight requests finish (their responses say Connection: close),
   * resolve when the last connection is gone.
   */
  close(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startHttpbin(options: {
  host: string;
  port: number;
  hostname: string;
  clock: Clock;
  /** Calibration mode: serve /fault/reset and /fault/close. */
  faults?: boolean;
}): Promise<HttpbinServer> {
  let shuttingDown = false;
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    const abort = new AbortController();
    res.on('close', () => {
      inFlight--;
      abort.abort(new Error('client went away'));
    });
    const context = {
      hostname: options.hostname,
      faults: options.faults ?? false,
      signal: abort.signal,
      sleep: (ms: number, signal: AbortSignal) => options.clock.sleep(ms, signal),
    };
    route(req, context).then(
      (reply) => {
        writeReply(res, reply, shuttingDown);
      },
      () => {
        // Only an aborted /delay rejects: the client is gone, nothing to answer.
        res.destroy();
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen({ host: options.host, port: options.port });
  await once(server, 'listening');
  const closed = once(server, 'close').then(() => undefined);
  return {
    address: server.address() as AddressInfo,
    inFlight: () => inFlight,
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
