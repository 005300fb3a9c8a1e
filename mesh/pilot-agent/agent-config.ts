import { requiredEnv } from '../../lib/required-env.ts';
import type { ProxyType } from '../xds/index.ts';
import { DEFAULT_DRAIN_SETTINGS } from './drain.ts';
import type { DrainSettings } from './drain.ts';

/** pilot-agent's settings, from its command line (`proxy router|sidecar`) and environment. */
export interface AgentConfig {
  type: ProxyType;
  podIp: string;
  /**
   * Where the status port (15021) listens: where the kubelet probes. A pod's one address in a real
   * pod; on the local backend a sidecar pod's app address (LOCAL_BIND_ADDRESS), which its probes use.
   */
  statusIp: string;
  podName: string;
  namespace: string;
  serviceAccount: string;
  /** The control plane's mTLS xDS address (host:port). */
  xdsAddress: string;
  /** Every ISTIO_META_<KEY>=value as node metadata KEY, plus NAMESPACE and SERVICE_ACCOUNT. */
  metadata: Record<string, string>;
  envoyPath: string;
  concurrency: number;
  /** ProxyConfig drainDuration (Envoy's --drain-time-s), default 45 s. */
  drainDurationS: number;
  drain: DrainSettings;
  logLevel: string;
}

/** ProxyConfig's default concurrency when nothing sets it (istio.io ProxyConfig `concurrency`). */
export const ISTIO_DEFAULT_CONCURRENCY = 2;
/** Istio's ports: readiness on 15021, Envoy's Prometheus stats on 15090. */
export const STATUS_PORT = 15021;
export const PROMETHEUS_PORT = 15090;

/**
 * Envoy's --concurrency as pilot-agent sets it: the container's CPU limit, which the injected
 * ISTIO_CPU_LIMIT variable carries (a resourceFieldRef on limits.cpu, rounded up to whole cores), else
 * ProxyConfig's default of 2. The gateway chart limits the proxy to 2000m: 2 workers.
 */
export function parseConcurrency(raw: string | undefined): number {
  if (raw === undefined || raw === '' || raw === '0') return ISTIO_DEFAULT_CONCURRENCY;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 64)
    throw new Error(
      `Expected ISTIO_CPU_LIMIT to be a whole number of cores 1-64, got ${JSON.stringify(raw)}`,
    );
  return value;
}

/** Istio's duration form ("5s", "45s") or a bare number of seconds; throws naming the variable. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallbackS: number): number {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallbackS : Number(raw.replace(/s$/, ''));
  if (!Number.isFinite(value) || value < 0)
    throw new Error(
      `Expected ${name} to be a non-negative number of seconds (e.g. 5s), got ${JSON.stringify(raw)}`,
    );
  return value;
}

export function parseAgentConfig(argv: readonly string[], env: NodeJS.ProcessEnv): AgentConfig {
  const [verb, type] = argv;
  if (verb !== 'proxy' || (type !== 'router' && type !== 'sidecar'))
    throw new Error(
      `Expected arguments \`proxy router\` or \`proxy sidecar\`, got ${JSON.stringify(argv.join(' '))}`,
    );
  const need = (variable: string): string => requiredEnv(env, variable);
  const namespace = env['POD_NAMESPACE'] ?? 'default';
  const serviceAccount = env['SERVICE_ACCOUNT'] ?? 'default';
  const metadata: Record<string, string> = { NAMESPACE: namespace, SERVICE_ACCOUNT: serviceAccount };
  for (const [key, value] of Object.entries(env))
    if (key.startsWith('ISTIO_META_') && value !== undefined)
      metadata[key.slice('ISTIO_META_'.length)] = value;
  // A sidecar's app listens on the pod's localhost: on the local backend that is the pod's private
  // app address (LOCAL_BIND_ADDRESS), elsewhere 127.0.0.1.
  if (type === 'sidecar' && metadata['HARNESS_APP_ADDRESS'] === undefined && env['LOCAL_BIND_ADDRESS'])
    metadata['HARNESS_APP_ADDRESS'] = env['LOCAL_BIND_ADDRESS'];
  return {
    type,
    podIp: need('INSTANCE_IP'),
    statusIp: env['LOCAL_BIND_ADDRESS'] || need('INSTANCE_IP'),
    podName: env['POD_NAME'] ?? env['HOSTNAME'] ?? 'proxy',
    namespace,
    serviceAccount,
    xdsAddress: need('XDS_ADDRESS'),
    metadata,
    // The image's envoy (kind: /usr/local/bin/envoy); the local backend names the pinned one.
    envoyPath: env['ENVOY_BINARY'] || 'envoy',
    concurrency: parseConcurrency(env['ISTIO_CPU_LIMIT']),
    drainDurationS: seconds(env, 'DRAIN_DURATION', 45),
    drain: {
      ...DEFAULT_DRAIN_SETTINGS,
      terminationDrainDurationMs: seconds(env, 'TERMINATION_DRAIN_DURATION', 5) * 1000,
      minimumDrainDurationMs: seconds(env, 'MINIMUM_DRAIN_DURATION', 5) * 1000,
      exitOnZeroActiveConnections: env['EXIT_ON_ZERO_ACTIVE_CONNECTIONS'] === 'true',
    },
    logLevel: env['PROXY_LOG_LEVEL'] ?? 'warning',
  };
}
