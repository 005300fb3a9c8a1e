import { ISTIO_DEFAULT_RETRY_ON, parseRetryPolicy } from './retry-policy.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { UpstreamConnectionLimits } from './upstream-agent.ts';

/** The gateway process's settings, from the environment its manifest sets. */
export interface GatewayConfig {
  bindAddress: string;
  port: number;
  xdsAddress: string;
  caAddress: string;
  /** hbone: mesh-aware (HBONE to ambient pods); plain: outside the mesh (plain TCP to pod IP:port). */
  mode: 'hbone' | 'plain';
  route: { service: string; port: number };
  retry: RetryPolicy;
  limits: UpstreamConnectionLimits;
  /** Idle timeout of the pooled HBONE HTTP/2 connections (Istio 1.29 hboneIdleTimeout). */
  hboneIdleTimeoutMs: number;
  /** Envoy worker threads (here worker processes), see parseConcurrency. */
  concurrency: number;
}

/** ProxyConfig's default concurrency when nothing sets it (istio.io ProxyConfig `concurrency`). */
export const ISTIO_DEFAULT_CONCURRENCY = 2;

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

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`Expected ${name} to be a non-negative number of seconds, got ${JSON.stringify(raw)}`);
  return value * 1000;
}

/** Throws with the variable named when a value is invalid. */
export function parseGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const need = (name: string): string =>
    env[name] ||
    ((): never => {
      throw new Error(`Expected ${name} to be set, got nothing`);
    })();
  const mode = env['GATEWAY_MODE'] ?? 'hbone';
  if (mode !== 'hbone' && mode !== 'plain')
    throw new Error(`Expected GATEWAY_MODE to be hbone or plain, got ${JSON.stringify(mode)}`);
  const numRetries = Number(env['NUM_RETRIES'] ?? '2');
  return {
    bindAddress: env['LOCAL_BIND_ADDRESS'] ?? '0.0.0.0',
    port: Number(env['PORT'] ?? '8080'),
    xdsAddress: need('XDS_ADDRESS'),
    caAddress: need('CA_ADDRESS'),
    mode,
    route: { service: env['ROUTE_SERVICE'] ?? 'default/httpbin', port: Number(env['ROUTE_PORT'] ?? '8000') },
    retry: parseRetryPolicy({ numRetries, retryOn: env['RETRY_ON'] ?? ISTIO_DEFAULT_RETRY_ON }),
    limits: {
      // Istio's cluster connect_timeout (meshConfig.connectTimeout, 10 s by default).
      connectTimeoutMs: seconds(env, 'CONNECT_TIMEOUT_S', 10),
      // Envoy's defaults: upstream idle timeout 1 h, no max connection duration, no request cap.
      idleTimeoutMs: seconds(env, 'UPSTREAM_IDLE_TIMEOUT_S', 3600),
      maxConnectionDurationMs: seconds(env, 'MAX_CONNECTION_DURATION_S', 0),
      maxRequestsPerConnection: Number(env['MAX_REQUESTS_PER_CONNECTION'] ?? '0'),
    },
    hboneIdleTimeoutMs: seconds(env, 'HBONE_IDLE_TIMEOUT_S', 3600),
    concurrency: parseConcurrency(env['ISTIO_CPU_LIMIT']),
  };
}
