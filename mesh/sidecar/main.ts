// The sidecar container (istio-proxy in sidecar mode, inbound only): pilot-agent's drain in front of
// an Envoy-like HTTP/1.1 inbound listener. Environment:
//   INSTANCE_IP                      the pod address it listens on (ports from APP_PORT)
//   LOCAL_BIND_ADDRESS, APP_PORT     where the app listens (the pod's "localhost")
//   TERMINATION_DRAIN_DURATION       seconds, default 5 (terminationDrainDuration)
//   EXIT_ON_ZERO_ACTIVE_CONNECTIONS  "true" to exit at zero active connections
//   MINIMUM_DRAIN_DURATION           seconds, default 5
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { DEFAULT_DRAIN_SETTINGS, drainLikePilotAgent } from './pilot-agent-drain.ts';
import { startSidecarProxy } from './sidecar-proxy.ts';

const log = createLogger({ component: 'sidecar', write: (l) => process.stdout.write(`${l}\n`) });
const seconds = (name: string, fallbackMs: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallbackMs / 1000 : Number(raw.replace(/s$/, ''));
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(
      `sidecar: Expected ${name} to be a non-negative number of seconds, got ${JSON.stringify(raw)}\n`,
    );
    process.exit(2);
  }
  return value * 1000;
};
const settings = {
  ...DEFAULT_DRAIN_SETTINGS,
  terminationDrainDurationMs: seconds(
    'TERMINATION_DRAIN_DURATION',
    DEFAULT_DRAIN_SETTINGS.terminationDrainDurationMs,
  ),
  minimumDrainDurationMs: seconds('MINIMUM_DRAIN_DURATION', DEFAULT_DRAIN_SETTINGS.minimumDrainDurationMs),
  exitOnZeroActiveConnections: process.env['EXIT_ON_ZERO_ACTIVE_CONNECTIONS'] === 'true',
};
const port = Number(process.env['APP_PORT'] ?? '8080');
const proxy = await startSidecarProxy({
  host: process.env['INSTANCE_IP'] ?? '0.0.0.0',
  port,
  appHost: process.env['LOCAL_BIND_ADDRESS'] ?? '127.0.0.1',
  appPort: port,
});
log.info('listening', {
  address: `${proxy.address.address}:${String(proxy.address.port)}`,
  exit_on_zero_active_connections: settings.exitOnZeroActiveConnections,
});

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  log.info('received SIGTERM, draining', { active_connections: proxy.activeConnections() });
  void drainLikePilotAgent({
    clock: createSystemClock(),
    settings,
    startDrain: () => {
      proxy.startDrain();
    },
    activeConnections: () => proxy.activeConnections(),
    onPoll: (active) => {
      log.info('active connections', { active });
    },
  }).then(({ waitedMs, reason }) => {
    log.info('drain done, exiting', {
      waited_ms: Math.round(waitedMs),
      reason,
      active_connections: proxy.activeConnections(),
    });
    proxy.destroy();
    // Let the resets reach the wire before the process goes (resetAndDestroy acts at handle close).
    setImmediate(() => process.exit(0));
  });
});
