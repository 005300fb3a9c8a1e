/**
 * What a real mesh keeps in VirtualService, DestinationRule and MeshConfig for the gateway's default
 * route (every host, prefix `/`), carried here as the proxy's node metadata
 * (ISTIO_META_HARNESS_ROUTE_POLICY, JSON): the local backend has no API server to hold CRDs, and the
 * experiments' arms set it per gateway. Gateways and VirtualServices, where the cluster has them
 * (kind), add virtual hosts before it (networking/). The control plane translates it as istiod
 * translates those fields (retry: pilot/pkg/networking/core/route/retry/retry.go ConvertPolicy;
 * connection pool: cluster_traffic_policy.go applyConnectionPool; hboneIdleTimeout:
 * cluster_waypoint.go, 1.29).
 */
export interface RoutePolicy {
  /** The VirtualService's destination: a Service and its port. */
  destination: { namespace: string; name: string; port: number };
  /** VirtualService `retries`: attempts and retryOn (Istio's DefaultPolicy when unset). */
  retries: { attempts: number; retryOn: string };
  /** DestinationRule connectionPool; unset fields are Envoy's defaults (istiod sets nothing). */
  connectionPool: {
    /** http.idleTimeout (Envoy's default 1 h). */
    idleTimeoutMs?: number;
    /** http.maxRequestsPerConnection (default unlimited). */
    maxRequestsPerConnection?: number;
    /** tcp.maxConnectionDuration (default none). */
    maxConnectionDurationMs?: number;
  };
  /** MeshConfig hboneIdleTimeout (Istio 1.29; 1.25-1.28 leave Envoy's 1 h). */
  hboneIdleTimeoutMs?: number;
}

export const ROUTE_POLICY_METADATA = 'HARNESS_ROUTE_POLICY';

/** Istio's default retry_on (retry.DefaultPolicy, 1.27+; 1.25/1.26 the same by default). */
export const ISTIO_DEFAULT_RETRY_ON =
  'connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes';
export const ISTIO_DEFAULT_ATTEMPTS = 2;

/** retry_on conditions Envoy's router knows for HTTP (router/retry_state_impl.cc). */
const RETRY_ON = new Set([
  '5xx',
  'gateway-error',
  'reset',
  'reset-before-request',
  'connect-failure',
  'envoy-ratelimited',
  'retriable-4xx',
  'refused-stream',
  'retriable-status-codes',
  'retriable-headers',
  'http3-post-connect-failure',
  'unavailable',
  'cancelled',
  'deadline-exceeded',
  'internal',
  'resource-exhausted',
]);

/** Checks a retry_on list as Envoy would (a NACK at run time otherwise); throws naming the bad token. */
export function checkRetryOn(retryOn: string): string[] {
  const conditions = retryOn
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const c of conditions)
    if (!RETRY_ON.has(c) && !/^[1-5]\d\d$/.test(c))
      throw new Error(`unknown retry_on condition ${JSON.stringify(c)} (known: ${[...RETRY_ON].join(', ')})`);
  return conditions;
}

export const DEFAULT_ROUTE_POLICY: RoutePolicy = {
  destination: { namespace: 'default', name: 'httpbin', port: 8000 },
  retries: { attempts: ISTIO_DEFAULT_ATTEMPTS, retryOn: ISTIO_DEFAULT_RETRY_ON },
  connectionPool: {},
};

/** The policy in a proxy's metadata, or the default; throws on a malformed one (a NACK-like refusal). */
export function routePolicyOf(metadata: Readonly<Record<string, string>>): RoutePolicy {
  const raw = metadata[ROUTE_POLICY_METADATA];
  if (raw === undefined || raw === '') return DEFAULT_ROUTE_POLICY;
  const parsed = JSON.parse(raw) as Partial<RoutePolicy>;
  const policy: RoutePolicy = {
    destination: { ...DEFAULT_ROUTE_POLICY.destination, ...parsed.destination },
    retries: { ...DEFAULT_ROUTE_POLICY.retries, ...parsed.retries },
    connectionPool: { ...parsed.connectionPool },
    ...(parsed.hboneIdleTimeoutMs === undefined ? {} : { hboneIdleTimeoutMs: parsed.hboneIdleTimeoutMs }),
  };
  checkRetryOn(policy.retries.retryOn);
  if (!Number.isInteger(policy.retries.attempts) || policy.retries.attempts < 0)
    throw new Error(`retries.attempts must be a whole number >= 0, got ${String(policy.retries.attempts)}`);
  return policy;
}
