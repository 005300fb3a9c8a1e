// The fault server's container: a test instrument with go-httpbin's routes and SIGTERM path plus
// what go-httpbin cannot do (see README.md). The experiments' httpbin is go-httpbin itself.
// Environment:
//   LOCAL_BIND_ADDRESS  where to listen (the local backend's private app address; default 0.0.0.0)
//   PORT                default 8080, go-httpbin's
//   POD_NAME            what /hostname answers (default: the OS hostname)
//   IGNORE_SIGTERM=1    a test mode: an app that ignores SIGTERM, for the kubelet's SIGKILL path
//   IDLE_TIMEOUT_MS     a test mode: close idle keep-alive connections after this long instead of
//                       go-httpbin's 5 s (a test about something else keeps the keep-alive race out)
//   SHUTDOWN            immediate (default: go-httpbin's, stop accepting at SIGTERM) | echo (Istio's
//                       echo server's: keep serving until 1 s passes with no request, at most 10 s;
//                       a second signal ends it; echo-drain.ts)
import { hostname } from 'node:os';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { echoDrain } from './echo-drain.ts';
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
const shutdown = process.env['SHUTDOWN'] ?? 'immediate';
if (shutdown !== 'immediate' && shutdown !== 'echo') {
  process.stderr.write(
    `fault-server: Expected SHUTDOWN to be immediate or echo, got ${JSON.stringify(shutdown)}\n`,
  );
  process.exit(2);
}
const clock = createSystemClock();
const server = await startFaultServer({
  host: process.env['LOCAL_BIND_ADDRESS'] ?? '0.0.0.0',
  port,
  hostname: process.env['POD_NAME'] ?? hostname(),
  clock,
  ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs: Number(idleTimeoutMs) }),
});
log.info('fault-server listening', { address: `${server.address.address}:${String(server.address.port)}` });

/** The second signal during an echo drain: it ends the drain at once, as echo's `Shutdown forced`. */
const forced = new AbortController();
let signalled = false;

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (process.env['IGNORE_SIGTERM'] === '1' && signal === 'SIGTERM') {
    log.info('received SIGTERM, ignoring it (IGNORE_SIGTERM=1)');
    return;
  }
  if (signalled) {
    forced.abort();
    return;
  }
  signalled = true;
  if (shutdown === 'echo') {
    log.info(`received ${signal}, draining as Istio's echo does (until 1 s without a request, at most 10 s)`);
    const end = await echoDrain({
      clock,
      lastRequestMs: () => server.lastRequestMs(),
      forced: forced.signal,
    });
    log.info('drain over, shutting down', { end, in_flight: server.inFlight() });
  } else log.info(`received ${signal}, shutting down`, { in_flight: server.inFlight() });
  await server.close();
  log.info('shutdown complete');
  process.exit(0);
}

// go-httpbin's path stops at SIGTERM; echo's hears SIGINT too (signal.Notify(SIGINT, SIGTERM)).
for (const signal of shutdown === 'echo' ? (['SIGTERM', 'SIGINT'] as const) : (['SIGTERM'] as const))
  process.on(signal, () => {
    void stop(signal);
  });
