import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createDiscoveryState } from '../../mesh/discovery/index.ts';
import {
  clusterIdOf,
  ISTIO_DEFAULT_PATHS,
  targetPortsOf,
  withIstioDefaults,
  xdsConfigFromEnv,
} from './xds-config.ts';

test('XDS_ADDRESS host:port is our JSON-lines discovery; unset is none', () => {
  assert.equal(xdsConfigFromEnv({}), undefined);
  assert.deepEqual(xdsConfigFromEnv({ XDS_ADDRESS: 'istiod.istio-system.svc:15010' }), {
    protocol: 'json-lines',
    address: 'istiod.istio-system.svc:15010',
    host: 'istiod.istio-system.svc',
    port: 15010,
  });
  assert.throws(
    () => xdsConfigFromEnv({ XDS_ADDRESS: 'istiod' }),
    /host:port or an https:\/\/ URL, got "istiod"/,
  );
});

test("an https:// XDS_ADDRESS is istiod's delta ADS: the node as istio/ztunnel names it, ISTIO_META_* as metadata", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'xds-config-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(join(dir, 'root.pem'), 'ROOT');
  const env = {
    XDS_ADDRESS: 'https://istiod.istio-system.svc:15012',
    CA_ROOT_CA: join(dir, 'root.pem'),
    AUTH_TOKEN: join(dir, 'token'),
    INSTANCE_IP: '10.244.1.7',
    POD_NAME: 'ztunnel-x1',
    POD_NAMESPACE: 'istio-system',
    NODE_NAME: 'worker',
    ISTIO_META_CLUSTER_ID: 'Kubernetes',
  };
  assert.deepEqual(xdsConfigFromEnv(env), {
    protocol: 'delta-ads',
    address: 'istiod.istio-system.svc:15012',
    rootPem: 'ROOT',
    tokenFile: join(dir, 'token'),
    clusterId: 'Kubernetes',
    node: {
      id: 'ztunnel~10.244.1.7~ztunnel-x1.istio-system~istio-system.svc.cluster.local',
      metadata: {
        CLUSTER_ID: 'Kubernetes',
        NAME: 'ztunnel-x1',
        NAMESPACE: 'istio-system',
        INSTANCE_IPS: '10.244.1.7',
        NODE_NAME: 'worker',
      },
    },
  });
  assert.throws(() => xdsConfigFromEnv({ ...env, POD_NAME: '' }), /Expected POD_NAME to be set/);
  // istio/ztunnel's order: ISTIO_META_CLUSTER_ID, CLUSTER_ID, then Kubernetes.
  assert.equal(clusterIdOf({ ...env, ISTIO_META_CLUSTER_ID: '', CLUSTER_ID: 'east' }), 'east');
  assert.equal(clusterIdOf({ ...env, CLUSTER_ID: 'east' }), 'Kubernetes');
  assert.equal(clusterIdOf({ ISTIO_META_CLUSTER_ID: 'west' }), 'west');
  assert.throws(
    () => xdsConfigFromEnv({ ...env, XDS_ADDRESS: 'http://istiod:15012' }),
    /an https:\/\/ URL with a port/,
  );
  assert.throws(() => xdsConfigFromEnv({ ...env, CA_ROOT_CA: join(dir, 'none.pem') }), /readable PEM file/);
});

test("istio/ztunnel's file defaults fill in only with istiod's protocols", () => {
  assert.deepEqual(withIstioDefaults({ XDS_ADDRESS: 'x:1' }), { XDS_ADDRESS: 'x:1' });
  const filled = withIstioDefaults({ XDS_ADDRESS: 'https://x:1' });
  assert.equal(filled['CA_ROOT_CA'], ISTIO_DEFAULT_PATHS.CA_ROOT_CA);
  assert.equal(filled['AUTH_TOKEN'], ISTIO_DEFAULT_PATHS.AUTH_TOKEN);
  assert.equal(withIstioDefaults({ XDS_ADDRESS: 'https://x:1', AUTH_TOKEN: '/t' })['AUTH_TOKEN'], '/t');
});

test("a pod's ports are its services' target ports, from discovery", () => {
  const state = createDiscoveryState();
  const pod = (name: string, services: string[]) => ({
    uid: name,
    name,
    namespace: 'default',
    serviceAccount: 'httpbin',
    node: 'worker',
    podIp: name === 'a' ? '10.244.1.5' : '10.244.1.6',
    status: 'HEALTHY' as const,
    protocol: 'HBONE' as const,
    capacity: 1,
    services,
  });
  state.apply({
    type: 'delta',
    version: '1',
    nonce: '1',
    workloads: { upsert: [pod('a', ['default/httpbin', 'default/admin']), pod('b', [])], remove: [] },
    services: {
      upsert: [
        {
          namespace: 'default',
          name: 'httpbin',
          vip: '10.96.0.10',
          ports: [{ port: 8000, targetPort: 8080 }],
        },
        { namespace: 'default', name: 'admin', vip: '10.96.0.11', ports: [{ port: 9000, targetPort: 9090 }] },
      ],
      remove: [],
    },
  });
  const portsOf = targetPortsOf(state);
  assert.deepEqual(portsOf('default', 'a'), [8080, 9090]);
  assert.deepEqual(portsOf('default', 'b'), []);
  assert.deepEqual(portsOf('default', 'unknown'), []);
});
