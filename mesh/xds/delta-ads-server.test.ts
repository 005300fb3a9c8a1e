// Our delta ADS server against a grpc-js delta client speaking as istio/ztunnel does (src/xds/client.rs:
// wildcard subscriptions to Address and Authorization, ACK/NACK by nonce, initial_resource_versions
// on reconnect), over real TLS on loopback.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiscoverySnapshot, WorkloadEntry } from '../discovery/index.ts';
import { createCertificateAuthority } from '../pki/index.ts';
import { startDeltaAdsServer } from './delta-ads-server.ts';
import { createDeltaClient, ztunnelNode } from './test/delta-client.ts';
import type { DeltaResponse } from './test/delta-client.ts';
import { addressResources, workloadUid } from './workload-resources.ts';
import { ADDRESS_TYPE_URL, AUTHORIZATION_TYPE_URL, decodeWorkload } from './workload-protos.ts';

const NODE_ID = 'ztunnel~127.0.0.9~ztunnel-a.istio-system~istio-system.svc.cluster.local';
const node = (id = NODE_ID) => ztunnelNode(id, 'node-1');

const pod = (name: string, ip: string): WorkloadEntry => ({
  uid: `uid-${name}`,
  name,
  namespace: 'default',
  serviceAccount: 'httpbin',
  node: 'node-1',
  podIp: ip,
  status: 'HEALTHY',
  protocol: 'HBONE',
  capacity: 1,
  services: ['default/httpbin'],
});
const SERVICES = [
  { namespace: 'default', name: 'httpbin', vip: '10.96.0.10', ports: [{ port: 8000, targetPort: 8080 }] },
];
const uidOf = (name: string): string => workloadUid({ namespace: 'default', name }, 'Kubernetes');

async function setUp(t: { after(fn: () => Promise<void> | void): void }) {
  const ca = await createCertificateAuthority();
  const serving = await ca.issueServing({ dns: ['istiod.istio-system.svc'], ips: ['127.0.0.1'] });
  let snapshot: DiscoverySnapshot = {
    workloads: [pod('a', '127.0.0.10'), pod('b', '127.0.0.11')],
    services: SERVICES,
  };
  const nackSeen: string[] = [];
  const server = await startDeltaAdsServer({
    host: '127.0.0.1',
    port: 0,
    tls: { key: serving.keyPem, cert: serving.certPem },
    authenticate: (token) =>
      Promise.resolve(
        token === 'ztunnel-a'
          ? { namespace: 'istio-system', podName: 'ztunnel-a' }
          : token === 'httpbin'
            ? { namespace: 'default', podName: 'httpbin-1' }
            : 'invalid token',
      ),
    resourcesFor: (_node, typeUrl) =>
      typeUrl === ADDRESS_TYPE_URL
        ? addressResources(snapshot)
        : typeUrl === AUTHORIZATION_TYPE_URL
          ? new Map()
          : undefined,
    onNack: (nack) => nackSeen.push(nack.message),
  });
  t.after(() => server.close());
  const client = createDeltaClient(server.address, ca.rootPem);
  t.after(() => {
    client.close();
  });
  return {
    server,
    open: client.open,
    nackSeen,
    setSnapshot: (s: DiscoverySnapshot) => {
      snapshot = s;
      server.update();
    },
  };
}

const names = (r: DeltaResponse): string[] => r.resources.map((x) => x.name).sort();

test('a wildcard subscriber gets every Address and an empty Authorization set; its ACK is recorded', async (t) => {
  const { server, open } = await setUp(t);
  const { stream, next } = open('ztunnel-a');
  stream.write({ node: node(), type_url: ADDRESS_TYPE_URL });
  stream.write({ node: node(), type_url: AUTHORIZATION_TYPE_URL });
  const addresses = await next();
  const policies = await next();
  assert.equal(addresses.type_url, ADDRESS_TYPE_URL);
  assert.deepEqual(
    names(addresses),
    [uidOf('a'), uidOf('b'), 'default/httpbin.default.svc.cluster.local'].sort(),
  );
  assert.deepEqual(addresses.removed_resources, []);
  const a = addresses.resources.find((r) => r.name === uidOf('a'));
  assert.ok(a);
  assert.equal(a.resource.type_url, ADDRESS_TYPE_URL);
  const workload = decodeWorkload(a.resource.value);
  assert.equal(workload.node, 'node-1');
  assert.equal(workload.uid, uidOf('a'));
  assert.equal(workload.tunnelProtocol, 'HBONE');
  assert.deepEqual(Object.keys(workload.services), ['default/httpbin.default.svc.cluster.local']);
  // ztunnel waits for a response to each type it watches before it is Ready: an empty one counts.
  assert.equal(policies.type_url, AUTHORIZATION_TYPE_URL);
  assert.deepEqual(policies.resources, []);
  assert.notEqual(addresses.nonce, policies.nonce);
  stream.write({ type_url: ADDRESS_TYPE_URL, response_nonce: addresses.nonce });
  stream.write({ type_url: AUTHORIZATION_TYPE_URL, response_nonce: policies.nonce });
  await t.waitFor(
    () => {
      assert.notEqual(server.acked(NODE_ID, AUTHORIZATION_TYPE_URL), undefined);
    },
    { interval: 5 },
  );
  assert.equal(server.acked(NODE_ID, ADDRESS_TYPE_URL), addresses.system_version_info);
  assert.deepEqual(server.proxies(), [NODE_ID]);
});

test('a pod added sends only it; a pod removed only its name; no change sends nothing', async (t) => {
  const { open, setSnapshot } = await setUp(t);
  const { stream, next } = open('ztunnel-a');
  stream.write({ node: node(), type_url: ADDRESS_TYPE_URL });
  const first = await next();
  setSnapshot({ workloads: [pod('a', '127.0.0.10'), pod('b', '127.0.0.11')], services: SERVICES });
  setSnapshot({
    workloads: [pod('a', '127.0.0.10'), pod('b', '127.0.0.11'), pod('c', '127.0.0.12')],
    services: SERVICES,
  });
  const added = await next();
  assert.deepEqual(names(added), [uidOf('c')]);
  assert.deepEqual(added.removed_resources, []);
  assert.notEqual(added.system_version_info, first.system_version_info);
  setSnapshot({ workloads: [pod('b', '127.0.0.11'), pod('c', '127.0.0.12')], services: SERVICES });
  const removed = await next();
  assert.deepEqual(removed.resources, []);
  assert.deepEqual(removed.removed_resources, [uidOf('a')]);
  // A status change is a new version of the same resource.
  setSnapshot({
    workloads: [{ ...pod('b', '127.0.0.11'), status: 'UNHEALTHY' }, pod('c', '127.0.0.12')],
    services: SERVICES,
  });
  const changed = await next();
  assert.deepEqual(names(changed), [uidOf('b')]);
  assert.equal(decodeWorkload(changed.resources[0]?.resource.value ?? new Uint8Array()).status, 'UNHEALTHY');
  assert.equal(Number(changed.nonce), Number(first.nonce) + 3, 'the unchanged push sent no response');
});

test('a NACK is recorded with the refused version and the client reason; a stale ACK is not an ACK', async (t) => {
  const { server, open, nackSeen, setSnapshot } = await setUp(t);
  const { stream, next } = open('ztunnel-a');
  stream.write({ node: node(), type_url: ADDRESS_TYPE_URL });
  const first = await next();
  setSnapshot({ workloads: [pod('a', '127.0.0.10')], services: SERVICES });
  const second = await next();
  stream.write({ type_url: ADDRESS_TYPE_URL, response_nonce: first.nonce });
  stream.write({
    type_url: ADDRESS_TYPE_URL,
    response_nonce: second.nonce,
    error_detail: { message: 'bad workload' },
  });
  await t.waitFor(
    () => {
      assert.equal(server.nacks().length, 1);
    },
    { interval: 5 },
  );
  assert.deepEqual(server.nacks(), [
    {
      node: NODE_ID,
      typeUrl: ADDRESS_TYPE_URL,
      version: second.system_version_info,
      message: 'bad workload',
    },
  ]);
  assert.deepEqual(nackSeen, ['bad workload']);
  assert.equal(server.acked(NODE_ID, ADDRESS_TYPE_URL), undefined);
});

test('a reconnect with initial_resource_versions gets what it lacks and the removal of what is gone', async (t) => {
  const { open } = await setUp(t);
  const { stream, next } = open('ztunnel-a');
  const first = open('ztunnel-a');
  first.stream.write({ node: node(), type_url: ADDRESS_TYPE_URL });
  const held = await first.next();
  const versionOfA = held.resources.find((r) => r.name === uidOf('a'))?.version ?? '';
  // ztunnel reports names with empty versions (client.rs 598-607): everything is re-sent.
  stream.write({
    node: node(),
    type_url: ADDRESS_TYPE_URL,
    initial_resource_versions: { [uidOf('a')]: versionOfA, [uidOf('gone')]: '', [uidOf('b')]: '' },
  });
  const resumed = await next();
  assert.deepEqual(names(resumed), [uidOf('b'), 'default/httpbin.default.svc.cluster.local'].sort());
  assert.deepEqual(resumed.removed_resources, [uidOf('gone')]);
});

test('refused: no token, a token of another namespace, a node that is not ztunnel, a type not served', async (t) => {
  const { open } = await setUp(t);
  const cases: [string | undefined, object, number, RegExp][] = [
    [undefined, { node: node(), type_url: ADDRESS_TYPE_URL }, 16, /no bearer token/],
    ['nope', { node: node(), type_url: ADDRESS_TYPE_URL }, 16, /invalid token/],
    ['httpbin', { node: node(), type_url: ADDRESS_TYPE_URL }, 7, /namespace default/],
    ['ztunnel-a', { node: node('router~1~a.b~c'), type_url: ADDRESS_TYPE_URL }, 3, /is not ztunnel~/],
    ['ztunnel-a', { node: node(), type_url: 'type.googleapis.com/x.Y' }, 3, /x\.Y is not served/],
    [
      'ztunnel-a',
      { node: node(), type_url: ADDRESS_TYPE_URL, resource_names_subscribe: ['a'] },
      3,
      /only wildcard/,
    ],
  ];
  for (const [token, request, code, message] of cases) {
    const { stream, ended } = open(token);
    stream.write(request);
    const err = await ended;
    assert.equal(err.code, code, `${String(token)}: ${err.message}`);
    assert.match(err.details, message);
  }
});
