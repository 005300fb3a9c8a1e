// pilot-agent (istio pilot/cmd/pilot-agent) for the gateway (`proxy router`) and the sidecar
// (`proxy sidecar`): gets the workload certificate with a CSR (the key never leaves this process
// and its Envoy), serves it to Envoy over SDS on a unix socket, writes the bootstrap, starts the real
// Envoy with pilot-agent's flags, answers readiness on :15021, and on SIGTERM drains as pilot-agent
// does, then SIGKILLs Envoy. Settings: agent-config.ts. The certificate is retried with bounded
// backoff while the CA is unreachable or answers 5xx, as pilot-agent's CA client retries transient
// gRPC codes (istio/istio pkg/security/retry.go); a refusal (4xx) or retries past the limit exit 1
// with the reason.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { caClientFromEnv, ISTIOD_HOSTNAMES, isTransientCaError } from '../pki/index.ts';
import { describeError, retryStartup } from '../startup-retry.ts';
import { proxyNodeId } from '../xds/index.ts';
import { parseAgentConfig, PROMETHEUS_PORT, STATUS_PORT } from './agent-config.ts';
import { buildBootstrap, envoyArgs } from './bootstrap.ts';
import { drainLikePilotAgent } from './drain.ts';
import { activeProxyConnections, envoyAdmin } from './envoy-admin.ts';
import { isEnvoyReady } from './readiness.ts';
import { startSdsServer } from './sds-server.ts';

const log = createLogger({ component: 'pilot-agent', write: (l) => process.stdout.write(`${l}\n`) });
let config;
let requestCertificate;
try {
  config = parseAgentConfig(process.argv.slice(2), process.env);
  // pilot-agent asks for the pod's own identity (no impersonation): the token's service account.
  requestCertificate = caClientFromEnv(process.env, { impersonate: false });
} catch (err) {
  process.stderr.write(`pilot-agent: ${(err as Error).message}\n`);
  process.exit(2);
}
const clock = createSystemClock();
const identity = { namespace: config.namespace, serviceAccount: config.serviceAccount };
const fetchCertificate = requestCertificate;
const cert = await retryStartup({
  what: `certificate for ${identity.namespace}/${identity.serviceAccount} from ${process.env['CA_ADDRESS'] ?? ''}`,
  attempt: () => fetchCertificate(identity),
  isTransient: isTransientCaError,
  clock,
  onRetry: ({ attempt, reason, retryInMs }) => {
    log.warn('ca request failed, retrying', { attempt, retry_in_ms: retryInMs, error: reason });
  },
}).catch((err: unknown) => {
  process.stderr.write(`pilot-agent: ${describeError(err)}\n`);
  process.exit(1);
});
// Istio's emptyDir /etc/istio/proxy: the bootstrap and the two sockets (short path: sun_path is 108 bytes).
const dir = mkdtempSync(join(tmpdir(), 'pa-'));
const cleanup = (): void => {
  rmSync(dir, { recursive: true, force: true });
};
process.once('exit', cleanup);
const sds = await startSdsServer({
  socketPath: join(dir, 'sds.sock'),
  cert,
  onNack: (message) => {
    log.error('Envoy refused a secret', { message });
  },
});
const adminSocket = join(dir, 'admin.sock');
const configPath = join(dir, 'envoy-rev.json');
writeFileSync(
  configPath,
  JSON.stringify(
    buildBootstrap({
      nodeId: proxyNodeId({
        type: config.type,
        ip: config.podIp,
        podName: config.podName,
        namespace: config.namespace,
      }),
      cluster: `${config.podName.replace(/-[a-z0-9]+-[a-z0-9]+$/, '')}.${config.namespace}`,
      metadata: config.metadata,
      xdsAddress: config.xdsAddress,
      xdsServerName: ISTIOD_HOSTNAMES[0] ?? 'istiod.istio-system.svc',
      adminSocket,
      sdsSocket: sds.socketPath,
      podIp: config.podIp,
      prometheusPort: PROMETHEUS_PORT,
    }),
  ),
);
const envoy = spawn(
  config.envoyPath,
  envoyArgs({
    configPath,
    drainDurationS: config.drainDurationS,
    concurrency: config.concurrency,
    logLevel: config.logLevel,
  }),
  // Envoy's access log is /dev/stdout and its own log stderr: the container's log, as in a pod.
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
let terminating = false;
envoy.once('error', (err) => {
  process.stderr.write(
    `pilot-agent: cannot start Envoy ${JSON.stringify(config.envoyPath)}: ${err.message}\n`,
  );
  process.exit(1);
});
envoy.once('exit', (code, signal) => {
  if (terminating) return;
  log.error('Envoy exited', { code, signal });
  process.exit(1);
});
const admin = envoyAdmin(adminSocket);
for (;;) {
  // Envoy's admin socket answers within ~100 ms of the exec.
  const up = await admin.get('/ready').then(
    () => true,
    () => false,
  );
  if (up) break;
  await clock.sleep(20);
}
log.info('started Envoy', { pid: envoy.pid, type: config.type, concurrency: config.concurrency });

const status = createServer((req, res) => {
  if (req.url !== '/healthz/ready') {
    res.writeHead(404).end();
    return;
  }
  // ready/probe.go: not ready once terminating; else Envoy LIVE with its first CDS and LDS applied.
  if (terminating) {
    res.writeHead(503).end('server is terminated');
    return;
  }
  isEnvoyReady(admin).then(
    (why) => res.writeHead(why === undefined ? 200 : 503).end(why ?? ''),
    (err: unknown) => res.writeHead(503).end(String(err)),
  );
}).listen({ host: config.statusIp, port: STATUS_PORT });
await once(status, 'listening');

process.on('SIGTERM', () => {
  if (terminating) return;
  terminating = true;
  const path =
    config.type === 'sidecar' ? '/drain_listeners?inboundonly&graceful' : '/drain_listeners?graceful';
  log.info('received SIGTERM, draining', {
    admin: path,
    exit_on_zero_active_connections: config.drain.exitOnZeroActiveConnections,
  });
  let lastListeners = '';
  void drainLikePilotAgent({
    clock,
    settings: config.drain,
    startDrain: () => {
      admin.post(path).catch((err: unknown) => {
        log.error('drain_listeners failed', { error: String(err) });
      });
    },
    activeConnections: async () => {
      // Which listeners hold connections, counted or not (the internal ones are not, #60731).
      const listeners: string[] = [];
      const active = await activeProxyConnections(admin, [STATUS_PORT, PROMETHEUS_PORT], (name, n, counted) =>
        listeners.push(`${name}=${String(n)}${counted ? '' : ' (not counted)'}`),
      );
      lastListeners = listeners.join(', ');
      return active;
    },
    onPoll: (active) => {
      log.info('active connections', { active, listeners: lastListeners });
    },
  }).then(async ({ waitedMs, reason }) => {
    log.info('drain done, killing Envoy', { waited_ms: Math.round(waitedMs), reason });
    status.close();
    envoy.kill('SIGKILL');
    await once(envoy, 'exit');
    await sds.close();
    process.exit(0);
  });
});
