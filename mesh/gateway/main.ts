// The gateway process (an Envoy-like Istio ingress gateway). Settings from the environment, see
// gateway-config.ts. Readiness :15021/healthz/ready once discovery has synced; access log on stdout.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { connectDiscovery } from '../discovery/index.ts';
import { createHbonePool } from '../hbone/index.ts';
import { createCaClient, formatSpiffeId } from '../pki/index.ts';
import { startGateway } from './gateway.ts';
import { parseGatewayConfig } from './gateway-config.ts';

const log = createLogger({ component: 'gateway', write: (l) => process.stdout.write(`${l}\n`) });
let config;
try {
  config = parseGatewayConfig(process.env);
} catch (err) {
  process.stderr.write(`gateway: ${(err as Error).message}\n`);
  process.exit(2);
}
const clock = createSystemClock();
const [xdsHost = '', xdsPort = ''] = config.xdsAddress.split(/:(?=\d+$)/);
const discovery = await connectDiscovery({
  host: xdsHost,
  port: Number(xdsPort),
  node: process.env['NODE_NAME'] ?? '',
  instance: process.env['INSTANCE'] ?? 'gateway',
});
await discovery.synced;
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
  discovery: discovery.state,
  route: config.route,
  ...(config.mode === 'hbone'
    ? {
        hbone: {
          kind: 'hbone' as const,
          pool,
          cert: await createCaClient(config.caAddress)(identity),
          srcIdentity: spiffe(identity.namespace, identity.serviceAccount),
          dstIdentity: spiffe(routeNs, routeName),
        },
      }
    : {}),
  retry: config.retry,
  limits: config.limits,
  log: (line) => process.stdout.write(`${line}\n`),
});
const readiness = createServer((req, res) => {
  res.writeHead(req.url === '/healthz/ready' ? 200 : 404).end();
});
readiness.listen({ host: config.bindAddress, port: 15021 });
await once(readiness, 'listening');
log.info('listening', {
  address: `${gateway.address.address}:${String(gateway.address.port)}`,
  mode: config.mode,
  retry_on: [...config.retry.retryOn].join(','),
});

process.on('SIGTERM', () => {
  log.info('received SIGTERM, closing');
  readiness.close();
  discovery.close();
  void gateway.close().then(() => process.exit(0));
});
