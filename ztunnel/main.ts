// The ztunnel process (one per node; a DaemonSet pod). Configuration from the environment, as the
// Helm chart sets it:
//   NODE_NAME, NODE_IP               the node (NODE_IP: node-address mode; in-pod, INSTANCE_IP stands in)
//   INSTANCE_IP                      this pod's own address: readiness :15021 and metrics :15020 bind
//                                    it (default NODE_IP), so each instance's probe reaches that instance
//   ZDS_ADDRESS                      the node agent's Unix socket (istio-cni's ZDS); in-pod mode only.
//                                    With istiod's protocols (below) it is istio-cni's own ZDS
//                                    (SOCK_SEQPACKET, each pod's namespace an fd, held by zds-relay at
//                                    ZDS_RELAY, default /usr/local/bin/zds-relay; node-agent/zds-client.ts),
//                                    default upstream's INPOD_UDS, else /var/run/ztunnel/ztunnel.sock
//   INPOD_ENABLED                    true (default, upstream's): a listener set inside each pod, pods
//                                    from the node agent. false: node-address mode (kind, hostNetwork):
//                                    one HBONE listener on NODE_IP:15008, pods from discovery
//   READY_FILE                       a path written once ready and removed when the drain starts, for
//                                    an exec readiness probe (node-address mode: every instance on the
//                                    node shares :15021, so an HTTP probe could reach the other one)
//   CA_ADDRESS                       the mesh CA (https://host:port, istiod's :15012)
//   CA_ROOT_CA / AUTH_TOKEN          files: the mesh root the CA's certificate chains to, and this
//                                    pod's service-account token (audience istio-ca); the chart
//                                    mounts both. Pods' certificates are asked for by impersonation
//                                    (CSR per identity; mesh/pki/ca-client.ts). With istiod's protocols
//                                    they default to istio/ztunnel's paths (src/config.rs), which
//                                    Istio's chart mounts without naming them
//   CONNECTION_TERMINATION_DEADLINE / TERMINATION_GRACE_PERIOD_SECONDS   the drain deadline
//   INSTANCE                         a name for this instance (default: NODE_NAME/pid)
//   XDS_ADDRESS                      the control plane's discovery; without it no outbound. host:port:
//                                    ours (JSON lines); https://host:port: istiod's own protocols, delta
//                                    ADS and the CA over gRPC, as istio/ztunnel speaks them (with
//                                    XDS_ROOT_CA, POD_NAME, POD_NAMESPACE, ISTIO_META_*: config/xds-config.ts)
//   DRAIN_STRATEGY                   none (upstream) | goaway-on-shutdown-start | drain-on-cni-del |
//                                    evict-on-removal | goaway-on-unhealthy (drain-strategy.ts)
//   POOL_BACKOFF                     true: the HBONE client pool backs off a destination after failed
//                                    connects (istio/ztunnel#1191's proposal; off upstream)
//   PLANTED_REGRESSION               test only: deadline-early | rst-at-deadline, a known regression to
//                                    prove the gate catches it (lib/planted-regression.ts)
// All of it is parsed once, before anything starts (config/ztunnel-config.ts); a bad value exits 2.
// SIGTERM (or SIGINT) starts the drain; the process exits when it is done.
// The discovery subscription and (node-address mode) ztunnel's own certificate are retried at start
// with bounded backoff while istiod is unreachable or answers 5xx (mesh/startup-retry.ts); a refusal
// (4xx) or retries past the limit exit 1 with the reason on stderr.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createLogger, createSystemClock } from '../lib/index.ts';
import {
  connectDiscovery,
  connectDiscoveryWithRetry,
  staySubscribed,
  whenSynced,
} from '../mesh/discovery/index.ts';
import type { DiscoveryChange, DiscoveryClient } from '../mesh/discovery/index.ts';
import { createHbonePool } from '../mesh/hbone/index.ts';
import { caClientFromEnv, isTransientCaError } from '../mesh/pki/index.ts';
import type { RequestCertificate } from '../mesh/pki/index.ts';
import { describeError, isTransientNetworkError, retryStartup } from '../mesh/startup-retry.ts';
import { connectDeltaAds, createDeltaAdsHoldings } from '../mesh/xds/delta-ads-client.ts';
import { startAdminServer } from './admin/admin-server.ts';
import { targetPortsOf } from './config/xds-config.ts';
import type { XdsConfig } from './config/xds-config.ts';
import { parseZtunnelConfig } from './config/ztunnel-config.ts';
import type { ZtunnelConfig } from './config/ztunnel-config.ts';
import { connectNodeAgent } from './node-agent/node-agent-client.ts';
import { DEFAULT_ZDS_SOCKET, connectZdsAgent } from './node-agent/zds-client.ts';
import { createZtunnelMetrics } from './telemetry/metrics.ts';
import { createZtunnel, ZTUNNEL_IDENTITY } from './ztunnel.ts';

function fail(message: string): never {
  process.stderr.write(`ztunnel: ${message}\n`);
  process.exit(2);
}

/** A start-up step that cannot succeed: exit 1 (2 is for bad settings), the kubelet restarts us. */
function startupFailed(err: unknown): never {
  process.stderr.write(`ztunnel: ${describeError(err)}\n`);
  process.exit(1);
}

/** How long one connect to istiod may take before it counts as a failed attempt. */
const CONNECT_TIMEOUT_MS = 10_000;

let config: ZtunnelConfig;
let issueCert: RequestCertificate;
try {
  config = parseZtunnelConfig(process.env, { pid: process.pid });
  const { xds } = config;
  // In shared mode ztunnel asks for each pod's identity on its node (ENABLE_IMPERSONATED_IDENTITY);
  // istiod's CA is asked over gRPC, ours over HTTPS/JSON.
  issueCert = caClientFromEnv(config.caEnv, {
    impersonate: true,
    ...(xds?.protocol === 'delta-ads'
      ? { protocol: 'grpc' as const, clusterId: xds.clusterId }
      : { protocol: 'json' as const }),
  });
} catch (err) {
  fail((err as Error).message);
}
const { nodeName, nodeIp, instance, drainDeadlineMs, drainStrategy, xds, inPod } = config;
const { poolBackoff, readCloseKinds, readyFile } = config;
// ztunnel's own line format (src/telemetry.rs): tab-separated, the access log under target `access`.
const log = createLogger({
  component: 'ztunnel',
  format: 'istio',
  write: (l) => process.stdout.write(`${l}\n`),
}).child({
  instance,
});

const clock = createSystemClock();
const metrics = createZtunnelMetrics();
// Every pool event is a log line: the harness counts stale connections, PINGs and new connections
// per app connection from them (harness/explain/drain-option-metrics.ts).
const poolLog = log.child({ scope: 'pool' });
const pool = createHbonePool({
  clock,
  ...(poolBackoff ? { settings: { backoff: { initialMs: 100, maxMs: 5000 } } } : {}),
  onEvent: (event) => {
    const { type, ...fields } = event;
    poolLog.info(`hbone pool ${type}`, fields);
  },
});
// Discovery changes reach the data plane once it exists; the first (full) delta arrives before.
let onChange: (change: DiscoveryChange) => void = () => undefined;
const discovery = xds ? await subscribe(xds).catch(startupFailed) : undefined;
const ztunnel = createZtunnel({
  issueCert,
  log,
  metrics,
  clock,
  drainDeadlineMs,
  drainStrategy,
  readCloseKinds,
  resetAtDeadline: config.planted === 'rst-at-deadline',
  ...(discovery ? { outbound: { discovery: discovery.state, pool } } : {}),
});
// Removals as istio/ztunnel's xDS client logs them (src/xds/client.rs), naming the workloads: kind
// reads the line as the removal reaching ztunnel (the run's removal lag, harness/explain/removal-lag.ts).
const xdsLog = log.child({ scope: 'xds::client' });
onChange = (change) => {
  if (change.removed.length > 0)
    xdsLog.info('received response', {
      type_url: 'type.googleapis.com/istio.workload.Address',
      removes: change.removed.length,
      workloads: change.removed.map((w) => `${w.namespace}/${w.name}`).join(','),
    });
  ztunnel.onDiscoveryChange(change);
};
const admin = await startAdminServer({
  nodeIp: config.adminIp,
  isReady: () => ztunnel.isReady(),
  registry: metrics.registry,
});
const agent = !inPod
  ? undefined
  : xds?.protocol === 'delta-ads'
    ? await connectZdsAgent({
        path: config.zdsPath ?? DEFAULT_ZDS_SOCKET,
        relayBinary: config.zdsRelay,
        instance,
        ztunnel,
        log,
        ...(discovery ? { portsOf: targetPortsOf(discovery.state) } : {}),
        shouldReconnect: () => !stopping,
      })
    : await connectNodeAgent({
        path: config.zdsPath ?? DEFAULT_ZDS_SOCKET,
        instance,
        ztunnel,
        log,
        shouldReconnect: () => !stopping,
      });
if (!inPod) {
  // The node listener presents ztunnel's own certificate: fetched here with retries, then served to
  // listenOnNode from the CA client's per-identity cache.
  await retryStartup({
    what: `certificate for istio-system/ztunnel from ${config.caAddress ?? 'CA_ADDRESS'}`,
    attempt: () => issueCert(ZTUNNEL_IDENTITY),
    isTransient: isTransientCaError,
    clock,
    onRetry: ({ attempt, reason, retryInMs }) => {
      log.warn('certificate fetch failed, retrying', {
        identity: 'istio-system/ztunnel',
        attempt,
        retry_in_ms: retryInMs,
        error: reason,
      });
    },
  }).catch(startupFailed);
  await ztunnel.listenOnNode({ ip: nodeIp, name: nodeName });
}
log.info('started', {
  node: nodeName,
  node_ip: nodeIp,
  drain_deadline_ms: drainDeadlineMs,
  drain_strategy: drainStrategy,
  pool_backoff: poolBackoff,
  read_close_kinds: readCloseKinds,
});

/** Writes READY_FILE once the instance is ready (polled like a probe, every 100 ms). */
async function markReadyWhenReady(path: string): Promise<void> {
  while (!ztunnel.isReady()) {
    if (stopping) return;
    await clock.sleep(100);
  }
  if (!stopping) writeFileSync(path, `${instance}\n`);
}

/**
 * The discovery subscription for the life of the process: the first stream with start-up's bounded
 * retries (a refusal exits), then, after any drop, a new stream resuming from what is held, retried
 * without end as istio/ztunnel's xDS client does (mesh/discovery/stay-subscribed.ts).
 */
async function subscribe(config: XdsConfig): Promise<DiscoveryClient> {
  const { open, first } = openDiscovery(config);
  const streamLog = log.child({ scope: 'xds::client' });
  return staySubscribed({
    first: await first,
    reopen: open,
    clock,
    onDropped: ({ reason, attempt, retryInMs }) => {
      streamLog.warn('XDS client connection error, retrying', {
        address: config.address,
        attempt,
        retry_in_ms: retryInMs,
        error: reason,
      });
    },
    onResumed: ({ attempts, downMs, streams }) => {
      streamLog.info('Stream established', {
        address: config.address,
        resumed: true,
        attempts,
        down_ms: Math.round(downMs),
        streams,
      });
    },
  });
}

/** The first stream (retried at start-up) and how to open each next one on the same state. */
function openDiscovery(config: XdsConfig): {
  first: Promise<DiscoveryClient>;
  open: () => Promise<DiscoveryClient>;
} {
  const { address } = config;
  const onRetry = ({
    attempt,
    reason,
    retryInMs,
  }: {
    attempt: number;
    reason: string;
    retryInMs: number;
  }): void => {
    log.warn('discovery connection failed, retrying', {
      address,
      attempt,
      retry_in_ms: retryInMs,
      error: reason,
    });
  };
  const applied = {
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    onChange: (change: DiscoveryChange) => {
      onChange(change);
    },
    onNack: (error: string) => {
      log.warn('discovery update rejected', { error });
    },
  };
  if (config.protocol === 'delta-ads') {
    const { tokenFile } = config;
    const holdings = createDeltaAdsHoldings();
    const open = (): Promise<DiscoveryClient> =>
      connectDeltaAds({
        address,
        rootPem: config.rootPem,
        token: () => readFileSync(tokenFile, 'utf8').trim(),
        node: config.node,
        clusterId: config.clusterId,
        holdings,
        ...applied,
      });
    const first = retryStartup({
      what: `delta ADS subscription to istiod ${address}`,
      clock,
      isTransient: isTransientNetworkError,
      onRetry,
      attempt: async () => whenSynced(await open()),
    });
    return { first, open };
  }
  const jsonLines = { host: config.host, port: config.port, node: nodeName, instance, ...applied };
  const first = connectDiscoveryWithRetry({ ...jsonLines, clock, onRetry });
  const open = async (): Promise<DiscoveryClient> =>
    connectDiscovery({ ...jsonLines, state: (await first).state });
  return { first, open };
}

let stopping = false;
if (readyFile) void markReadyWhenReady(readyFile);
const shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  // Readiness goes first, then the line saying so: whoever reads the line sees the file gone.
  if (readyFile) rmSync(readyFile, { force: true });
  log.info('received signal, starting drain', { signal });
  // Readiness, metrics and every pod listener close at once; then the drain waits.
  void Promise.all([admin.close(), ztunnel.drain()]).then(() => {
    void agent?.destroy();
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
