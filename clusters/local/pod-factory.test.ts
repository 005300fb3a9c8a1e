import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Container } from '@kubernetes/client-node';
import { ISTIO_ZTUNNEL_IMAGE } from '../manifests/index.ts';
import { createAddressPool } from './address-pool.ts';
import { createPodRecord } from './pod-factory.ts';

const podWith = (container: V1Container) =>
  createPodRecord({
    owner: { kind: 'Deployment', name: 'httpbin', templateHash: 'abc' },
    namespace: 'default',
    template: {
      metadata: { labels: { 'istio.io/dataplane-mode': 'ambient' } },
      spec: { containers: [{ name: 'httpbin', image: 'go-httpbin' }, container] },
    },
    node: { name: 'node-1', ip: '127.201.0.1' },
    nodeIndex: 1,
    addresses: createAddressPool(201),
    nowMs: 0,
  });

test("a pod runs a dedicated ztunnel when a container says PROXY_MODE=dedicated (istio/ztunnel's own switch), whatever its image", () => {
  const dedicated = podWith({
    name: 'own-build',
    image: 'my-registry/ztunnel:dev',
    env: [{ name: 'PROXY_MODE', value: 'dedicated' }],
  });
  assert.equal(dedicated.dedicatedZtunnel, true);
  assert.equal(dedicated.appIp, dedicated.podIp, 'the app binds the pod address, the ztunnel the wildcard');
  const sameImageShared = podWith({ name: 'istio-ztunnel', image: ISTIO_ZTUNNEL_IMAGE, env: [] });
  assert.equal(sameImageShared.dedicatedZtunnel, undefined);
  assert.notEqual(
    sameImageShared.appIp,
    sameImageShared.podIp,
    'a meshed pod without its own ztunnel: captured',
  );
});
