// The fault server's container: a test instrument with go-httpbin's routes and SIGTERM path plus
// what go-httpbin cannot do (see README.md). The experiments' httpbin is go-httpbin itself.
// Environment:
//   LOCAL_BIND_ADDRESS  where to listen (the local backend's private app address; default 0.0.0.0)
//   PORT                default 8080, go-httpbin's
//   POD_NAME            what /hostname answers (default: the OS hostname)
//   IGNORE_SIGTERM=1    a test mode: an app that ignores SIGTERM, for the kubelet's SIGKILL path
//   IDLE_TIMEOUT_MS     a test mode: close idle keep-alive connections after this long instead of
//                       go-httpbin's 5 s (a test about something else keeps the keep-alive race out)
import { hostname } from 'node:os';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { startFaultServer } from './fault-server.ts';

const log = createLogger({ component: 'fault-server', write: (l) => process.stdout.write(`${l}\n`) });
const port = Number(process.env['PORT'] ?? '8080');
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(
    `fault-server: Expected PORT to be a TCP port, got ${JSON.stringify(process.env['PORT'])}\n`,
  );
  process.exit(2);
}
const idleTimeoutMs = process.env['IDLE_TIMEOUT_MS'];
if (idleTimeoutMs !== undefined && !(Number.isInteger(Number(idleTimeoutMs)) && Number(idleTimeoutMs) > 0)) {
  process.stderr.write(
    `fault-server: Expected IDLE_TIMEOUT_MS to be a positive whole number of milliseconds, got ${JSON.stringify(idleTimeoutMs)}\n`,
  );
  process.exit(2);
}
const server = await startFaultServer({
  host: process.env['LOCAL_BIND_ADDRESS'] ?? '0.0.0.0',
  port,
  hostname: process.env['POD_NAME'] ?? hostname(),
  clock: createSystemClock(),
  ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs: Number(idleTimeoutMs) }),
});
log.info('fault-server listening', { address: `${server.address.address}:${String(server.address.port)}` });

process.on('SIGTERM', () => {
  if (process.env['IGNORE_SIGTERM'] === '1') {
    log.info('received SIGTERM, ignoring it (IGNORE_SIGTERM=1)');
    return;
  }
  log.info('received SIGTERM, shutting down', { in_flight: server.inFlight() });
  void server.close().then(() => {
    log.info('shutdown complete');
    process.exit(0);
  });
});
