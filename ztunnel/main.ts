// The ztunnel process (one per node; a DaemonSet pod). Configuration from the environment, as the
// Helm chart sets it:
//   NODE_NAME, NODE_IP               the node (readiness :15021 and metrics :15020 bind NODE_IP)
//   ZDS_ADDRESS                      the node agent's Unix socket (istio-cni's ZDS)
//   CA_ADDRESS                       the mesh CA (http://host:port)
//   CONNECTION_TERMINATION_DEADLINE / TERMINATION_GRACE_PERIOD_SECONDS   the drain deadline
//   INSTANCE                         a name for this instance (default: NODE_NAME/pid)
// SIGTERM (or SIGINT) starts the drain; the process exits when it is done.
import { createLogger, createSystemClock } from '../lib/index.ts';
import { createCaClient } from '../mesh/pki/index.ts';
import { startAdminServer } from './admin/admin-server.ts';
import { computeDrainDeadlineMs } from './config/drain-deadline.ts';
import { connectNodeAgent } from './node-agent/node-agent-client.ts';
import { createZtunnelMetrics } from './telemetry/metrics.ts';
import { createZtunnel } from './ztunnel.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`ztunnel: Expected ${name} to be set, got nothing\n`);
    process.exit(2);
  }
  return value;
}

const nodeName = required('NODE_NAME');
const nodeIp = required('NODE_IP');
const instance = process.env['INSTANCE'] ?? `${nodeName}/${String(process.pid)}`;
const log = createLogger({ component: 'ztunnel', write: (l) => process.stdout.write(`${l}\n`) }).child({
  instance,
});
let drainDeadlineMs: number;
try {
  drainDeadlineMs = computeDrainDeadlineMs(process.env);
} catch (err) {
  process.stderr.write(`ztunnel: ${(err as Error).message}\n`);
  process.exit(2);
}

const clock = createSystemClock();
const metrics = createZtunnelMetrics();
const ztunnel = createZtunnel({
  issueCert: createCaClient(required('CA_ADDRESS')),
  log,
  metrics,
  clock,
  drainDeadlineMs,
});
const admin = await startAdminServer({
  nodeIp,
  isReady: () => ztunnel.isReady(),
  registry: metrics.registry,
});
const agent = await connectNodeAgent({ path: required('ZDS_ADDRESS'), instance, ztunnel, log });
log.info('started', { node: nodeName, node_ip: nodeIp, drain_deadline_ms: drainDeadlineMs });

let stopping = false;
const shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  log.info('received signal, starting drain', { signal });
  // Readiness, metrics and every pod listener close at once; then the drain waits.
  void Promise.all([admin.close(), ztunnel.drain()]).then(() => {
    agent.destroy();
    process.exit(0);
  });
};
process.on('SIGTERM', () => {
  shutdown('SIGTERM');
});
process.on('SIGINT', () => {
  shutdown('SIGINT');
});
