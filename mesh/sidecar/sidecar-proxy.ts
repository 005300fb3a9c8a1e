import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SidecarProxy {
  address: AddressInfo;
  /** Downstream connections open now (Envoy's downstream_cx_active for the inbound listener). */
  activeConnections(): number;
  /** Envoy's graceful drain: Connection: close on every HTTP/1.1 response from now on, idle connections closed. */
  startDrain(): void;
  /** Abrupt end (the process exiting): every connection reset. */
  destroy(): void;
}

/**
 * The sidecar's inbound path: an HTTP/1.1 listener on the pod address in front of the app (the
 * app's "localhost" is its private address here), with a keep-alive pool to the app.
 */
export async function startSidecarProxy(options: {
  host: string;
  port: number;
  appHost: string;
  appPort: number;
}): Promise<SidecarProxy> {
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  let draining = false;
  const server: Server = createServer((req, res) => {
    const upstream = request(
      {
        agent,
        host: options.appHost,
        port: options.appPort,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (up) => {
        const headers = { ...up.headers };
        delete headers['connection'];
        delete headers['keep-alive'];
        // Envoy's HTTP/1.1 drain: the response closes the connection (GOAWAY is the HTTP/2 form).
        if (draining) headers['connection'] = 'close';
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent)
        res
          .writeHead(503, { 'content-type': 'text/plain' })
          .end('upstream connect error or disconnect/reset before headers. reset reason: connection failure');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 3_600_000;
  server.requestTimeout = 0;
  server.listen({ host: options.host, port: options.port });
  await once(server, 'listening');
  return {
    address: server.address() as AddressInfo,
    activeConnections: () => sockets.size,
    startDrain: () => {
      draining = true;
      server.closeIdleConnections();
    },
    destroy: () => {
      for (const socket of sockets) socket.resetAndDestroy();
      server.close();
      agent.destroy();
    },
  };
}
