// The ztunnel process (one per node; a DaemonSet pod). Configuration from the environment, as the
// Helm chart sets it:
//   NODE_NAME, NODE_IP               the node
//   INSTANCE_IP                      this pod's own address: readiness :15021 and metrics :15020 bind
//                                    it (default NODE_IP), so each instance's probe reaches that instance
//   ZDS_ADDRESS                      the node agent's Unix socket (istio-cni's ZDS)
//   CA_ADDRESS                       the mesh CA (http://host:port)
//   CONNECTION_TERMINATION_DEADLINE / TERMINATION_GRACE_PERIOD_SECONDS   the drain deadline
//   INSTANCE                         a name for this instance (default: NODE_NAME/pid)
//   XDS_ADDRESS                      the control plane's discovery (host:port); without it no outbound
//   DRAIN_STRATEGY                   none (upstream) | goaway-on-unhealthy | evict-on-removal
// SIGTERM (or SIGINT) starts the drain; the process exits when it is done.
import { createLogger, createSystemClock } from '../lib/index.ts';
import { connectDiscovery } from '../mesh/discovery/index.ts';
import type { DiscoveryChange, DiscoveryClient } from '../mesh/discovery/index.ts';
import { createHbonePool } from '../mesh/hbone/index.ts';
import { createCaClient } from '../mesh/pki/index.ts';
import { startAdminServer } from './admin/admin-server.ts';
import { computeDrainDeadlineMs } from './config/drain-deadline.ts';
import { parseDrainStrategy } from './drain-strategy.ts';
import type { DrainStrategy } from './drain-strategy.ts';
import { connectNodeAgent } from './node-agent/node-agent-client.ts';
import { createZtunnelMetrics } from './telemetry/metrics.ts';
import { createZtunnel } from './ztunnel.ts';

function fail(message: string): never {
  process.stderr.write(`ztunnel: ${message}\n`);
  process.exit(2);
}

function required(name: string): string {
  return process.env[name] || fail(`Expected ${name} to be set, got nothing`);
}

const nodeName = required('NODE_NAME');
const nodeIp = required('NODE_IP');
const instance = process.env['INSTANCE'] ?? `${nodeName}/${String(process.pid)}`;
const log = createLogger({ component: 'ztunnel', write: (l) => process.stdout.write(`${l}\n`) }).child({
  instance,
});
let drainDeadlineMs = 0;
let drainStrategy: DrainStrategy = 'none';
try {
  drainDeadlineMs = computeDrainDeadlineMs(process.env);
  drainStrategy = parseDrainStrategy(process.env['DRAIN_STRATEGY']);
} catch (err) {
  fail((err as Error).message);
}

const clock = createSystemClock();
const metrics = createZtunnelMetrics();
const pool = createHbonePool({ clock });
// Discovery changes reach the data plane once it exists; the first (full) delta arrives before.
let onChange: (change: DiscoveryChange) => void = () => undefined;
const discovery = process.env['XDS_ADDRESS'] ? await subscribe(process.env['XDS_ADDRESS']) : undefined;
const ztunnel = createZtunnel({
  issueCert: createCaClient(required('CA_ADDRESS')),
  log,
  metrics,
  clock,
  drainDeadlineMs,
  drainStrategy,
  ...(discovery ? { outbound: { discovery: discovery.state, pool } } : {}),
});
onChange = (change) => {
  ztunnel.onDiscoveryChange(change);
};
const admin = await startAdminServer({
  nodeIp: process.env['INSTANCE_IP'] || nodeIp,
  isReady: () => ztunnel.isReady(),
  registry: metrics.registry,
});
const agent = await connectNodeAgent({ path: required('ZDS_ADDRESS'), instance, ztunnel, log });
log.info('started', {
  node: nodeName,
  node_ip: nodeIp,
  drain_deadline_ms: drainDeadlineMs,
  drain_strategy: drainStrategy,
});

async function subscribe(address: string): Promise<DiscoveryClient> {
  const [host = '', port = ''] = address.split(/:(?=\d+$)/);
  const client = await connectDiscovery({
    host,
    port: Number(port),
    node: nodeName,
    instance,
    onChange: (change) => {
      onChange(change);
    },
    onNack: (error) => {
      log.warn('discovery update rejected', { error });
    },
  });
  await client.synced;
  return client;
}

let stopping = false;
const shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  log.info('received signal, starting drain', { signal });
  // Readiness, metrics and every pod listener close at once; then the drain waits.
  void Promise.all([admin.close(), ztunnel.drain()]).then(() => {
    agent.destroy();
    discovery?.close();
    pool.destroy();
    process.exit(0);
  });
};
process.on('SIGTERM', () => {
  shutdown('SIGTERM');
});
process.on('SIGINT', () => {
  shutdown('SIGINT');
});
