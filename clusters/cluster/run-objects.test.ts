import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildMeshManifests, imageFrom } from '../manifests/index.ts';
import { adaptTopology, buildRunObjects, mapNamespace, runHost, runNamespaceName } from './run-objects.ts';
import { OWNED_SELECTOR } from './run-ownership.ts';

const NS = 'ztunnel-harness-20261127-103000-0a1b';

/** The objects' fields as the assertions read them. */
interface Loose {
  kind: string;
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    selector: unknown;
    servers: { hosts: string[] }[];
    gateways: string[];
    http: { route: { destination: unknown }[] }[];
  };
}

test('a run namespace name is a DNS label of its time and a random suffix', () => {
  const name = runNamespaceName(Date.UTC(2026, 10, 27, 10, 30, 0), () => 0.04);
  assert.equal(name, 'ztunnel-harness-20261127-103000-0a3d');
  assert.match(name, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
});

test("the run's route host: random (128 bits, two never equal), not derived from the namespace's name", () => {
  const host = runHost(() => Buffer.alloc(16, 0xab));
  assert.equal(host, `httpbin-${'ab'.repeat(16)}.ztunnel-harness.test`);
  assert.notEqual(runHost(), runHost());
  assert.doesNotMatch(runHost(), /ztunnel-harness-2026/);
});

test('the run objects: an ambient namespace with its expiry, a Gateway selecting the gateway pods, a VirtualService bound to it', () => {
  const host = runHost();
  const [ns, sa, gateway, vs] = buildRunObjects({
    namespace: NS,
    host,
    gatewaySelector: { istio: 'ingressgateway' },
    expiresAt: '2026-11-27T10:35:00.000Z',
  }) as unknown as [Loose, Loose, Loose, Loose];
  assert.equal(ns.metadata.labels['istio.io/dataplane-mode'], 'ambient');
  assert.equal(ns.metadata.annotations?.['ztunnel-harness/expires-at'], '2026-11-27T10:35:00.000Z');
  for (const o of [ns, sa, gateway, vs]) {
    const [key, value] = OWNED_SELECTOR.split('=');
    assert.equal(o.metadata.labels[key ?? ''], value, `${o.kind} carries the owner label`);
    assert.equal(o.metadata.labels['ztunnel-harness/run'], NS);
  }
  assert.deepEqual(gateway.spec.selector, { istio: 'ingressgateway' });
  assert.deepEqual(gateway.spec.servers[0]?.hosts, [host]);
  assert.deepEqual(vs.spec.gateways, [`${NS}/harness-gateway`]);
  assert.deepEqual(vs.spec.http[0]?.route[0]?.destination, {
    host: `httpbin.${NS}.svc.cluster.local`,
    port: { number: 8000 },
  });
});

test("the standard topology made the run's: httpbin moved into its namespace, the cluster's ztunnel and gateway left out", () => {
  const topology = buildMeshManifests({
    ztunnel: { graceS: 30 },
    httpbin: { replicas: 2, mesh: 'ambient' },
    gateway: { mode: 'hbone' },
  });
  const adapted = adaptTopology(topology, { namespace: NS, imageRegistry: 'registry.example.com/team/' });
  assert.deepEqual(
    adapted.map((o) => `${String(o.kind)}/${String(o.metadata?.namespace)}/${String(o.metadata?.name)}`),
    [`Deployment/${NS}/httpbin`, `Service/${NS}/httpbin`],
  );
  const deployment = adapted[0] as (typeof adapted)[number] & {
    spec: { template: { spec: { containers: { image: string }[] } } };
  };
  assert.equal(
    deployment.spec.template.spec.containers[0]?.image,
    'registry.example.com/team/go-httpbin:v2.26.0',
  );
  assert.equal(deployment.metadata?.labels?.['ztunnel-harness/run'], NS);
  // The input is not changed (the local and kind backends take the same objects).
  assert.equal(
    topology.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'httpbin')?.metadata?.namespace,
    'default',
  );
});

test('images stay as they are without a registry; refs map into the run and Istio namespaces', () => {
  assert.equal(imageFrom('mccutchen/go-httpbin:v2.26.0', undefined), 'mccutchen/go-httpbin:v2.26.0');
  assert.equal(mapNamespace('default', { run: NS, istio: 'istio' }), NS);
  assert.equal(mapNamespace('istio-system', { run: NS, istio: 'istio' }), 'istio');
  assert.equal(mapNamespace('other', { run: NS, istio: 'istio' }), 'other');
});
