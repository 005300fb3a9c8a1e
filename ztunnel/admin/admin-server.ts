import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import { METRICS_PORT, READINESS_PORT } from '../../mesh/workload.ts';

/**
 * The node-address endpoints: readiness on :15021 `/healthz/ready` (the DaemonSet's probe) and
 * Prometheus metrics on :15020 `/metrics`. Bound with SO_REUSEPORT like every ztunnel listener, so
 * the old and new instance can both hold them during an upgrade.
 */
export interface AdminServer {
  close(): Promise<void>;
}

export async function startAdminServer(options: {
  nodeIp: string;
  isReady: () => boolean;
  registry: Registry;
  readinessPort?: number;
  metricsPort?: number;
}): Promise<AdminServer> {
  const readiness = createServer((req, res) => {
    if (req.url !== '/healthz/ready') {
      res.writeHead(404).end();
      return;
    }
    const ready = options.isReady();
    res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ready\n' : 'not ready\n');
  });
  const metrics = createServer((req, res) => {
    if (req.url !== '/metrics' && req.url !== '/stats/prometheus') {
      res.writeHead(404).end();
      return;
    }
    options.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  const bound: [Server, number][] = [
    [readiness, options.readinessPort ?? READINESS_PORT],
    [metrics, options.metricsPort ?? METRICS_PORT],
  ];
  await Promise.all(
    bound.map(async ([server, port]) => {
      server.listen({ host: options.nodeIp, port, reusePort: true });
      await once(server, 'listening');
    }),
  );
  return {
    close: async () => {
      await Promise.all(
        bound.map(async ([server]) => {
          server.closeAllConnections();
          server.close();
          if (server.listening) await once(server, 'close');
        }),
      );
    },
  };
}
