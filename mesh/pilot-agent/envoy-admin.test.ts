// pilot-agent's count for EXIT_ON_ZERO_ACTIVE_CONNECTIONS from Envoy's downstream_cx_active lines,
// as istio/istio pkg/envoy/agent.go activeProxyConnections reads them after #60731.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { activeProxyConnections } from './envoy-admin.ts';
import type { EnvoyAdmin } from './envoy-admin.ts';

const adminWith = (stats: Record<string, number>): EnvoyAdmin => ({
  get: () => Promise.reject(new Error('not used')),
  post: () => Promise.reject(new Error('not used')),
  stats: () => Promise.resolve(new Map(Object.entries(stats))),
});

test("an ambient gateway's internal HBONE listeners are not counted: their connections are the upstream pool's, not clients' (istio/istio#60728)", async () => {
  const drained = adminWith({
    'listener.10.244.1.5_8080.downstream_cx_active': 0,
    'listener.10.244.1.5_8080.worker_0.downstream_cx_active': 0,
    // The connect_originate internal listener holds one connection per pooled HBONE tunnel.
    'listener.envoy_internal_connect_originate.downstream_cx_active': 4,
    'listener.envoy_internal_connect_originate.worker_1.downstream_cx_active': 4,
    'listener.admin.downstream_cx_active': 1,
    'listener.10.244.1.5_15021.downstream_cx_active': 1,
    'http.inbound.downstream_cx_active': 2,
  });
  assert.equal(await activeProxyConnections(drained, [15021]), 0);
  const busy = adminWith({
    'listener.10.244.1.5_8080.downstream_cx_active': 3,
    'listener.envoy_internal_connect_originate.downstream_cx_active': 4,
  });
  assert.equal(await activeProxyConnections(busy, [15021]), 3);
  assert.equal(await activeProxyConnections(adminWith({}), [15021]), -1);
});
