// One plain-TCP upstream behind the gateway's route (default/httpbin:8000), from a static discovery
// state, and the upstream limits Istio gives the gateway: for gateway tests that need no ztunnel.
import { createDiscoveryState } from '../../discovery/index.ts';
import type { DiscoveryState } from '../../discovery/index.ts';
import type { UpstreamConnectionLimits } from '../upstream-agent.ts';

export const ROUTE = { service: 'default/httpbin', port: 8000 };

/** Istio's cluster defaults: connect timeout 10 s, idle timeout 1 h, no age or request cap. */
export const ISTIO_UPSTREAM_LIMITS: UpstreamConnectionLimits = {
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 3_600_000,
  maxConnectionDurationMs: 0,
  maxRequestsPerConnection: 0,
};

/** A discovery state with one HEALTHY TCP workload at podIp:port backing the route's Service. */
export function plainUpstreamDiscovery(podIp: string, port: number): DiscoveryState {
  const discovery = createDiscoveryState();
  discovery.apply({
    type: 'delta',
    version: '1',
    nonce: '1',
    workloads: {
      upsert: [
        {
          uid: 'httpbin-1',
          name: 'httpbin-1',
          namespace: 'default',
          serviceAccount: 'httpbin',
          node: 'node-1',
          podIp,
          status: 'HEALTHY',
          protocol: 'TCP',
          capacity: 1,
          services: ['default/httpbin'],
        },
      ],
      remove: [],
    },
    services: {
      upsert: [
        {
          namespace: 'default',
          name: 'httpbin',
          vip: '127.0.0.2',
          ports: [{ port: ROUTE.port, targetPort: port }],
        },
      ],
      remove: [],
    },
  });
  return discovery;
}
