import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal HTTP target on loopback answering go-httpbin's `/status/:code` (any other path: 200).
 * It stands in for httpbin until the local cluster exists (issue 4), for the load smoke run and the
 * k6 benchmark; it is not the system under test.
 */
export interface LocalTarget {
  url: string;
  close(): Promise<void>;
}

export async function startLocalTarget(host = '127.0.0.1'): Promise<LocalTarget> {
  const server: Server = createServer((req, res) => {
    const status = Number(/^\/status\/(\d{3})(?:\?|$)/.exec(req.url ?? '')?.[1] ?? 200);
    res.writeHead(status, { 'content-length': '0' }).end();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
