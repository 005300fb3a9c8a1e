// The gateway process (an Istio ingress gateway: pilot-agent and Envoy's main thread). Settings from
// the environment, see gateway-config.ts. It subscribes to discovery and fetches the gateway's
// certificate once, then runs `concurrency` worker processes (worker.ts), each an Envoy worker
// thread with its own SO_REUSEPORT listener and pools, and relays every discovery delta to them.
// Readiness on :15021/healthz/ready once every worker listens; Envoy's stats, summed over the
// workers, on :15090/stats/prometheus; the access log on stdout (buffered by each worker).
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { AggregatorRegistry } from 'prom-client';
import { createLogger } from '../../lib/index.ts';
import { connectDiscovery } from '../discovery/index.ts';
import type { ServerMessage } from '../discovery/index.ts';
import { caClientFromEnv } from '../pki/index.ts';
import type { RequestCertificate } from '../pki/index.ts';
import { parseGatewayConfig } from './gateway-config.ts';
import { isFromWorker } from './worker-messages.ts';
import type { ToWorker } from './worker-messages.ts';

const log = createLogger({ component: 'gateway', write: (l) => process.stdout.write(`${l}\n`) });
let config;
let requestCertificate: RequestCertificate;
try {
  config = parseGatewayConfig(process.env);
  // pilot-agent asks for the pod's own identity (no impersonation): the token's service account.
  requestCertificate = caClientFromEnv(process.env, { impersonate: false });
} catch (err) {
  process.stderr.write(`gateway: ${(err as Error).message}\n`);
  process.exit(2);
}
const identity = {
  namespace: process.env['POD_NAMESPACE'] ?? 'istio-system',
  serviceAccount: process.env['SERVICE_ACCOUNT'] ?? 'istio-ingressgateway',
};
const cert = await requestCertificate(identity);
const workers: Worker[] = [];
const send = (worker: Worker, message: ToWorker): void => {
  if (worker.isConnected()) worker.send(message);
};
const [xdsHost = '', xdsPort = ''] = config.xdsAddress.split(/:(?=\d+$)/);
const discovery = await connectDiscovery({
  host: xdsHost,
  port: Number(xdsPort),
  node: process.env['NODE_NAME'] ?? '',
  instance: process.env['INSTANCE'] ?? 'gateway',
  onApplied: (message) => {
    for (const worker of workers) send(worker, { type: 'gateway-delta', message });
  },
});
await discovery.synced;

/** The main process's whole state as one delta: what a worker starting now needs first. */
const snapshot = (): ServerMessage => ({
  type: 'delta',
  version: discovery.state.version,
  nonce: 'snapshot',
  workloads: { upsert: discovery.state.workloads(), remove: [] },
  services: { upsert: discovery.state.services(), remove: [] },
});

let draining = false;
cluster.setupPrimary({ exec: fileURLToPath(new URL('./worker.ts', import.meta.url)) });
const listening: Promise<string>[] = [];
for (let i = 0; i < config.concurrency; i++) {
  const worker = cluster.fork();
  workers.push(worker);
  const up = Promise.withResolvers<string>();
  listening.push(up.promise);
  worker.on('message', (message: unknown) => {
    if (isFromWorker(message)) up.resolve(message.address);
  });
  worker.once('exit', (code, signal) => {
    up.reject(new Error(`worker ${String(worker.id)} exited before listening`));
    if (draining) return;
    // Envoy is one process: a worker thread that dies takes the gateway with it.
    log.error('worker exited', { worker: worker.id, code, signal });
    for (const other of workers) other.process.kill('SIGKILL');
    process.exit(1);
  });
  send(worker, { type: 'gateway-init', cert });
  send(worker, { type: 'gateway-delta', message: snapshot() });
}
const addresses = await Promise.all(listening);

const metrics = new AggregatorRegistry();
const onAdminRequest = (req: IncomingMessage, res: ServerResponse): void => {
  if (req.url === '/healthz/ready') {
    res.writeHead(draining ? 503 : 200).end();
  } else if (req.url === '/stats/prometheus') {
    metrics.clusterMetrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  } else {
    res.writeHead(404).end();
  }
};
// Istio's ports: readiness on 15021, Prometheus stats on 15090.
const adminPorts = [15021, 15090].map((port) =>
  createServer(onAdminRequest).listen({ host: config.bindAddress, port }),
);
await Promise.all(adminPorts.map((s) => once(s, 'listening')));
log.info('listening', {
  address: addresses[0],
  mode: config.mode,
  concurrency: config.concurrency,
  retry_on: [...config.retry.retryOn].join(','),
});

process.on('SIGTERM', () => {
  if (draining) return;
  draining = true;
  log.info('received SIGTERM, closing', { workers: workers.length });
  discovery.close();
  for (const server of adminPorts) server.close();
  for (const worker of workers) send(worker, { type: 'gateway-drain' });
  void Promise.all(workers.filter((w) => !w.isDead()).map((w) => once(w, 'exit'))).then(() =>
    process.exit(0),
  );
});
