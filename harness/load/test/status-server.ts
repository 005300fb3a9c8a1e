// A local HTTP server for the generators' fixed-rate tests: it answers /status/<code> with that
// status and counts what it answered, so a test can compare the generator's counts with the server's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startStatusServer(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<{ base: string; answered: Map<number, number> }> {
  const answered = new Map<number, number>();
  const server = createServer((req, res) => {
    const status = Number(/^\/status\/(\d{3})$/.exec(req.url ?? '')?.[1] ?? 404);
    answered.set(status, (answered.get(status) ?? 0) + 1);
    // A length, as go-httpbin and Envoy send: fortio 1.66 waits for the close after an OK answer
    // whose chunked body is empty (Node's bare end()).
    res.writeHead(status, { 'content-length': 0 }).end();
  });
  // No idle close inside a run: the connections the generator keeps stay its own.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  );
  return { base: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, answered };
}
