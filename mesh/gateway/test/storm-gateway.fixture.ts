// A gateway process for the connection-storm test: plain mode (no HBONE, no CA), one route to the
// httpbin at UPSTREAM (host:port) from a static discovery state. ACCEPTOR_SOCKETS overrides the
// gateway's listen sockets (1 shows the stall the test guards against). SATURATE_MS: every 50 ms the
// event loop is kept busy this long, so one poll of it takes about that long, as in a gateway
// saturated by a k6 on many cores (on a 2-core machine the client cannot drive it there).
// Prints "listening <port>".
import { createSystemClock } from '../../../lib/index.ts';
import { startGateway } from '../gateway.ts';
import { ISTIO_DEFAULT_RETRY_ON, parseRetryPolicy } from '../retry-policy.ts';
import { ISTIO_UPSTREAM_LIMITS, plainUpstreamDiscovery, ROUTE } from './plain-route.ts';

const [host = '', port = ''] = (process.env['UPSTREAM'] ?? '').split(':');
const discovery = plainUpstreamDiscovery(host, Number(port));
const acceptorSockets = process.env['ACCEPTOR_SOCKETS'];
const gateway = await startGateway({
  host: process.env['GATEWAY_HOST'] ?? '127.0.0.1',
  port: 0,
  clock: createSystemClock(),
  discovery,
  route: ROUTE,
  retry: parseRetryPolicy({ numRetries: 2, retryOn: ISTIO_DEFAULT_RETRY_ON }),
  limits: ISTIO_UPSTREAM_LIMITS,
  log: () => undefined,
  ...(acceptorSockets ? { acceptorSockets: Number(acceptorSockets) } : {}),
});
const saturateMs = Number(process.env['SATURATE_MS'] ?? '0');
if (saturateMs > 0)
  setInterval(() => {
    const until = performance.now() + saturateMs;
    while (performance.now() < until) {
      // Busy: this is the point (a poll of a saturated loop takes this long).
    }
  }, 50).unref();
process.stdout.write(`listening ${String(gateway.address.port)}\n`);
process.on('SIGTERM', () => {
  void gateway.close().then(() => process.exit(0));
});
