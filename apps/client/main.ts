// A meshed client pod (ambient): sends requests to a Service at a fixed rate, each on a new app
// connection through its node's ztunnel (outbound capture), and logs every outcome. The traffic it
// makes is ztunnel-to-ztunnel HBONE, what seed 003's drain options act on. Environment:
//   TARGET              VIP:port of the Service (the manifest names httpbin.default.svc:8000)
//   RPS                 requests per second (default 20)
//   TARGET_PATH         default /status/418
//   TIMEOUT_MS          per request (default 5000)
//   POD_IP              this pod's address (ztunnel's capture listens there)
//   LOCAL_BIND_ADDRESS  where the app itself sits
import { createLogger } from '../../lib/index.ts';
import { formatClientRequest, sendThroughCapture } from './client-load.ts';

const log = createLogger({ component: 'client', write: (l) => process.stdout.write(`${l}\n`) });
function fail(message: string): never {
  process.stderr.write(`client: ${message}\n`);
  process.exit(2);
}
const [vip = '', port = ''] = (process.env['TARGET'] ?? '').split(':');
const rps = Number(process.env['RPS'] ?? '20');
if (!vip || !Number(port))
  fail(`Expected TARGET to be VIP:port, got ${JSON.stringify(process.env['TARGET'])}`);
if (!(rps > 0 && rps <= 1000))
  fail(`Expected RPS to be a number in (0, 1000], got ${JSON.stringify(process.env['RPS'])}`);
const target = {
  podIp: process.env['POD_IP'] ?? fail('Expected POD_IP to be set, got nothing'),
  appIp: process.env['LOCAL_BIND_ADDRESS'] ?? '0.0.0.0',
  vip,
  port: Number(port),
  path: process.env['TARGET_PATH'] ?? '/status/418',
  timeoutMs: Number(process.env['TIMEOUT_MS'] ?? '5000'),
};
let stopping = false;
const timer = setInterval(() => {
  if (stopping) return;
  void sendThroughCapture(target, Date.now).then((r) => {
    log.info(formatClientRequest(r));
  });
}, 1000 / rps);
log.info('client started', { target: `${vip}:${port}`, rps });
process.on('SIGTERM', () => {
  stopping = true;
  clearInterval(timer);
  log.info('received SIGTERM, stopping');
  setTimeout(() => process.exit(0), 100);
});
