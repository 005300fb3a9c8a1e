// One gateway worker process (an Envoy worker thread): its own SO_REUSEPORT listener on the gateway's
// address, its own upstream pools (HTTP/1.1 per endpoint, HBONE), its own LEAST_REQUEST counts and
// its own buffered access log. Configuration and the certificate come from the main process (main.ts).
import cluster from 'node:cluster';
import { AggregatorRegistry, Counter } from 'prom-client';
import { createSystemClock } from '../../lib/index.ts';
import { createDiscoveryState } from '../discovery/index.ts';
import { createHbonePool } from '../hbone/index.ts';
import { formatSpiffeId } from '../pki/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';
import { createAccessLogWriter } from './access-log-writer.ts';
import { startGateway } from './gateway.ts';
import type { Gateway } from './gateway.ts';
import { parseGatewayConfig } from './gateway-config.ts';
import { isToWorker } from './worker-messages.ts';
import type { FromWorker } from './worker-messages.ts';

const config = parseGatewayConfig(process.env); // the main process has validated the same variables
const clock = createSystemClock();
const discovery = createDiscoveryState();
const accessLog = createAccessLogWriter();
const workerId = cluster.worker?.id ?? 0;
const init = Promise.withResolvers<WorkloadCertificate>();
const synced = Promise.withResolvers<undefined>();
/** Set once it listens; the drain message may come before. */
const running: { gateway?: Gateway } = {};

process.on('message', (message: unknown) => {
  if (!isToWorker(message)) return; // prom-client's metric requests share the channel
  if (message.type === 'gateway-init') {
    // Dates do not survive the IPC channel's JSON.
    init.resolve({ ...message.cert, notAfter: new Date(message.cert.notAfter) });
  } else if (message.type === 'gateway-delta') {
    discovery.apply(message.message);
    synced.resolve(undefined);
  } else {
    accessLog.flush();
    void (running.gateway?.close() ?? Promise.resolve()).finally(() => {
      accessLog.close();
      process.exit(0);
    });
  }
});

const cert = await init.promise;
await synced.promise;
const identity = {
  namespace: process.env['POD_NAMESPACE'] ?? 'istio-system',
  serviceAccount: process.env['SERVICE_ACCOUNT'] ?? 'istio-ingressgateway',
};
const spiffe = (ns: string, sa: string) =>
  formatSpiffeId({ trustDomain: 'cluster.local', namespace: ns, serviceAccount: sa });
const [routeNs = 'default', routeName = 'httpbin'] = config.route.service.split('/');
const pool = createHbonePool({ clock, settings: { idleReleaseMs: config.hboneIdleTimeoutMs } });
const gateway = await startGateway({
  host: config.bindAddress,
  port: config.port,
  clock,
  discovery,
  route: config.route,
  ...(config.mode === 'hbone'
    ? {
        hbone: {
          kind: 'hbone' as const,
          pool,
          cert,
          srcIdentity: spiffe(identity.namespace, identity.serviceAccount),
          dstIdentity: spiffe(routeNs, routeName),
        },
      }
    : {}),
  retry: config.retry,
  limits: config.limits,
  log: (line) => {
    accessLog.write(line);
  },
});

// Envoy's counters under their Prometheus names, read from the gateway when scraped (nothing is
// counted twice on the request path); the main process sums the workers (prom-client's
// AggregatorRegistry), as Envoy's stats are summed over its threads.
running.gateway = gateway;
// prom-client answers the main process's metric requests in a worker only once an AggregatorRegistry
// exists there (its constructor adds the listener, lib/cluster.js addListeners); without it the
// main's /stats/prometheus waited for workers that never answered.
new AggregatorRegistry();
const stats = (): ReturnType<Gateway['stats']> => gateway.stats();
new Counter({
  name: 'envoy_http_downstream_rq_total',
  help: 'Downstream requests (all workers).',
  collect() {
    this.reset();
    this.inc(stats().requests);
  },
});
new Counter({
  name: 'envoy_http_downstream_rq_local_reply_total',
  help: 'Requests answered by the gateway itself (503 UF/UC/UH/URX).',
  collect() {
    this.reset();
    this.inc(stats().localReplies);
  },
});

const listening: FromWorker = {
  type: 'gateway-listening',
  worker: workerId,
  address: `${gateway.address.address}:${String(gateway.address.port)}`,
};
process.send?.(listening);
