// The istiod process for a real cluster (the kind backend's istiod image; the local backend runs the
// control plane inside the harness instead). Pods and services from Kubernetes watches (Gateways and
// VirtualServices too where networking.istio.io/v1 is served: the gateway's routes), workload
// discovery on :15010, Envoy's mTLS ADS on :15011, the CA on :15012 (TLS; callers authenticated by
// TokenReview), the mesh root in the istio-ca-root-cert ConfigMap of each namespace whose proxies
// mount it (ROOT_CERT_NAMESPACES). Configuration from the environment:
//   KUBECONFIG                 optional; in a pod the service account's in-cluster config is used
//   AMBIENT_TUNNEL             pod (default) | node: where HBONE to a pod terminates (kind runs ztunnel
//                              in node-address mode, so `node`: the pod's hostIP:15008)
//   PILOT_DEBOUNCE_AFTER       quiet period before a push, ms (istiod's default 100 ms)
//   PILOT_DEBOUNCE_MAX         longest a push waits while changes keep coming, ms (default 10 s)
//   LOCAL_BIND_ADDRESS         default 0.0.0.0
//   XDS_PORT / CA_PORT         default 15010 / 15012 (0 picks free ports, for tests); Envoy's ADS
//                              is on 15011 and istio/ztunnel's delta ADS on 15013, or on free ports
//                              too when XDS_PORT is 0
//   READINESS_PORT             default 8080 (istiod's HTTP port): GET /ready answers 200 once the
//                              watches are synced, the servers listen and the istio-ca-root-cert
//                              ConfigMaps are written, 503 naming the step it waits for before
// One JSON line per push on stdout (version, who acked, which workloads turned UNHEALTHY or went),
// `serving readiness` first, and `listening` with the bound addresses once Ready. Writing a
// ConfigMap is retried while the API server answers 5xx or cannot be reached (mesh/startup-retry.ts).
// SIGTERM closes it.
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { describeError, retryStartup } from '../startup-retry.ts';
import { CA_PORT, startControlPlane, XDS_PORT } from './control-plane.ts';
import { createKubeClusterSource } from './kube-source.ts';
import { READINESS_PORT, startReadinessServer } from './readiness-server.ts';
import {
  describeApiError,
  isTransientApiError,
  publishRootCert,
  ROOT_CERT_CONFIGMAP,
  ROOT_CERT_NAMESPACES,
} from './root-cert-configmap.ts';
import { createTokenReviewAuthenticator } from './token-review.ts';

function fail(message: string): never {
  process.stderr.write(`istiod: ${message}\n`);
  process.exit(2);
}

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/ms$/, ''));
  if (!Number.isInteger(value) || value < 0)
    fail(`Expected ${name} to be a whole number of milliseconds >= 0, got ${JSON.stringify(raw)}`);
  return value;
}

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535)
    fail(`Expected ${name} to be a port number 0-65535 (0: any free port), got ${JSON.stringify(raw)}`);
  return value;
}

const tunnel = process.env['AMBIENT_TUNNEL'] ?? 'pod';
if (tunnel !== 'pod' && tunnel !== 'node')
  fail(`Expected AMBIENT_TUNNEL to be pod or node, got ${JSON.stringify(tunnel)}`);
const debounceQuietMs = integer('PILOT_DEBOUNCE_AFTER', 100);
const debounceMaxMs = integer('PILOT_DEBOUNCE_MAX', 10_000);
const ports = { xds: port('XDS_PORT', XDS_PORT), ca: port('CA_PORT', CA_PORT) };
const readinessPort = port('READINESS_PORT', READINESS_PORT);
const host = process.env['LOCAL_BIND_ADDRESS'] ?? '0.0.0.0';

const log = createLogger({ component: 'istiod', write: (l) => process.stdout.write(`${l}\n`) });
const clock = createSystemClock();
const readiness = await startReadinessServer({
  host,
  port: readinessPort,
  waitingFor: 'the pod and service watches to sync',
}).catch((err: unknown) => fail(`cannot serve readiness: ${describeError(err)}`));
log.info('serving readiness', { ready: readiness.address });
const kc = new KubeConfig();
kc.loadFromDefault();
const source = createKubeClusterSource(kc, { tunnel, log });
source.onError((err) => {
  // client-node's informers stop on an error; a control plane that no longer sees the cluster must
  // not keep serving stale endpoints. Kubernetes restarts the pod.
  log.error('watch failed, exiting', { error: err.message });
  process.exit(1);
});
try {
  await source.start();
} catch (err) {
  fail(
    `cannot list pods, services (or Istio's routing config) from ${kc.getCurrentCluster()?.server ?? '?'}: ${String(err)}`,
  );
}
readiness.setWaitingFor('the discovery, xDS and CA servers to listen');
const controlPlane = await startControlPlane({
  source,
  authenticate: createTokenReviewAuthenticator(kc),
  clock,
  log,
  host,
  debounceQuietMs,
  debounceMaxMs,
  pushLatencyMs: 0,
  ports,
  onPush: (report) => {
    log.info('pushed', {
      version: report.version,
      subscribers: report.subscribers,
      acked: report.acked,
      unhealthy: report.becameUnhealthy.map((w) => `${w.namespace}/${w.name}`).join(','),
      removed: report.removed.map((w) => `${w.namespace}/${w.name}`).join(','),
    });
  },
});
for (const namespace of ROOT_CERT_NAMESPACES) {
  readiness.setWaitingFor(`the ${ROOT_CERT_CONFIGMAP} ConfigMap in ${namespace}`);
  await retryStartup({
    what: `writing the ${ROOT_CERT_CONFIGMAP} ConfigMap in ${namespace}`,
    attempt: () => publishRootCert(kc, namespace, controlPlane.ca.rootPem),
    isTransient: isTransientApiError,
    describe: describeApiError,
    clock,
    onRetry: ({ attempt, reason, retryInMs }) => {
      log.warn('writing the root ConfigMap failed, retrying', {
        namespace,
        attempt,
        retry_in_ms: retryInMs,
        error: reason,
      });
    },
  }).catch((err: unknown) => {
    process.stderr.write(`istiod: ${describeError(err)}\n`);
    process.exit(1);
  });
}
// Ready only now: a proxy pod scheduled on istiod's readiness finds the ConfigMap it mounts.
readiness.markReady();
log.info('listening', {
  xds: controlPlane.xdsAddress,
  ca: controlPlane.caUrl,
  envoy_xds: controlPlane.envoyXdsAddress,
  tunnel,
  debounce_after_ms: debounceQuietMs,
  debounce_max_ms: debounceMaxMs,
});

process.on('SIGTERM', () => {
  log.info('received SIGTERM, closing');
  void Promise.all([readiness.close(), controlPlane.close(), source.stop()]).then(() => process.exit(0));
});
