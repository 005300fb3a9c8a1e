// Our ztunnel's delta ADS client (istiod's protocol) against our delta ADS server, which serves
// istio/ztunnel's binary the same way, over real TLS on loopback: the state it builds, removals by
// resource name, a refused token, a NACK.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiscoveryChange, DiscoverySnapshot, WorkloadEntry } from '../discovery/index.ts';
import { createCertificateAuthority } from '../pki/index.ts';
import { createSystemClock } from '../../lib/index.ts';
import { staySubscribed, whenSynced } from '../discovery/index.ts';
import { connectDeltaAds, createDeltaAdsHoldings, ztunnelNodeId } from './delta-ads-client.ts';
import type { DeltaAdsClientOptions } from './delta-ads-client.ts';
import { status } from '@grpc/grpc-js';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { failCall } from './ads-server.ts';
import { startDeltaAdsServer } from './delta-ads-server.ts';
import { adsService } from './envoy-protos.ts';
import type { XdsNack } from './ads-server.ts';
import { addressResources, workloadUid } from './workload-resources.ts';
import type { ResourceSet } from './workload-resources.ts';
import { ADDRESS_TYPE_URL } from './workload-protos.ts';
import { startBareGrpcServer } from './test/bare-grpc-server.ts';

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
const HTTPBIN = {
  namespace: 'default',
  name: 'httpbin',
  vip: '10.96.0.10',
  ports: [{ port: 8000, targetPort: 8080 }],
};
const FULL: DiscoverySnapshot = {
  workloads: [pod('a', '127.0.0.10'), pod('b', '127.0.0.11')],
  services: [HTTPBIN],
};

async function setUp(t: { after(fn: () => Promise<void> | void): void }) {
  const ca = await createCertificateAuthority();
  const serving = await ca.issueServing({ dns: ['istiod.istio-system.svc'], ips: ['127.0.0.1'] });
  let resources: () => ResourceSet = () => addressResources(FULL);
  const nacks: XdsNack[] = [];
  const server = await startDeltaAdsServer({
    host: '127.0.0.1',
    port: 0,
    tls: { key: serving.keyPem, cert: serving.certPem },
    authenticate: (token) =>
      Promise.resolve(
        token === 'ztunnel-a' ? { namespace: 'istio-system', podName: 'ztunnel-a' } : 'invalid token',
      ),
    resourcesFor: (_node, typeUrl) => (typeUrl === ADDRESS_TYPE_URL ? resources() : undefined),
    onNack: (nack) => nacks.push(nack),
  });
  t.after(() => server.close());
  const changes: DiscoveryChange[] = [];
  const nacked: string[] = [];
  const connect = async (token = 'ztunnel-a', extra: Partial<DeltaAdsClientOptions> = {}) => {
    const client = await connectDeltaAds({
      address: server.address,
      rootPem: ca.rootPem,
      token: () => token,
      node: {
        id: ztunnelNodeId({ ip: '127.0.0.9', name: 'ztunnel-a', namespace: 'istio-system' }),
        metadata: { NODE_NAME: 'node-1' },
      },
      clusterId: 'Kubernetes',
      onChange: (c) => changes.push(c),
      onNack: (e) => nacked.push(e),
      ...extra,
    });
    t.after(() => {
      client.close();
    });
    return client;
  };
  return {
    connect,
    changes,
    nacked,
    nacks,
    serve: (next: () => ResourceSet) => {
      resources = next;
      server.update();
    },
  };
}

const until = async (what: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(what(), 'condition not met within 2 s');
};

test('the first response fills the state: workloads by IP (istiod uid), the service by VIP and its endpoints', async (t) => {
  const { connect } = await setUp(t);
  const client = await connect();
  await client.synced;
  const a = client.state.workloadByIp('127.0.0.10');
  assert.equal(a?.uid, workloadUid({ namespace: 'default', name: 'a' }, 'Kubernetes'));
  assert.deepEqual(
    { ...a, uid: '' },
    { ...pod('a', '127.0.0.10'), uid: '' },
    'every field our ztunnel routes by survives the Address encoding',
  );
  const service = client.state.serviceByVip('10.96.0.10');
  assert.deepEqual(service, HTTPBIN);
  assert.deepEqual(
    client.state
      .endpointsOf(HTTPBIN)
      .map((w) => w.name)
      .sort(),
    ['a', 'b'],
  );
});

test('a removal names the resource: the workload and the service go, and the change lists the workload', async (t) => {
  const { connect, serve, changes } = await setUp(t);
  const client = await connect();
  await client.synced;
  serve(() => addressResources({ workloads: [pod('a', '127.0.0.10')], services: [] }));
  await until(() => changes.length === 2);
  assert.deepEqual(
    changes[1]?.removed.map((w) => w.name),
    ['b'],
  );
  assert.equal(client.state.workloadByIp('127.0.0.11'), undefined);
  assert.equal(
    client.state.serviceByVip('10.96.0.10'),
    undefined,
    'the service removed by its resource name',
  );
  assert.deepEqual(
    client.state.workloads().map((w) => w.name),
    ['a'],
  );
});

test('a response that does not decode is NACKed whole; the state keeps the last good one', async (t) => {
  const { connect, serve, nacked, nacks } = await setUp(t);
  const client = await connect();
  await client.synced;
  const good = addressResources(FULL);
  serve(
    () =>
      new Map([
        ...good,
        ['garbage', { name: 'garbage', version: 'x', bytes: Uint8Array.from([0xff, 0xff]) }],
      ]),
  );
  await until(() => nacks.length === 1);
  assert.equal(nacked.length, 1);
  assert.match(nacks[0]?.message ?? '', /cannot decode an istio\.workload\.Address/);
  assert.equal(client.state.workloads().length, 2);
});

test('a token istiod refuses ends the stream before any state: synced rejects with UNAUTHENTICATED', async (t) => {
  const { connect } = await setUp(t);
  const client = await connect('someone-else');
  await assert.rejects(client.synced, (err: Error & { grpcCode?: number }) => {
    assert.equal(err.grpcCode, 16);
    assert.match(err.message, /delta ADS stream to 127\.0\.0\.1:\d+ ended/);
    return true;
  });
});

test("the stream carries the token and the cluster id as istio/ztunnel's does (authorization, clusterid)", async (t) => {
  const ca = await createCertificateAuthority();
  const serving = await ca.issueServing({ dns: [], ips: ['127.0.0.1'] });
  const seen: Record<string, unknown>[] = [];
  const record = (call: ServerDuplexStream<unknown, unknown>): void => {
    seen.push({
      authorization: call.metadata.get('authorization')[0],
      clusterid: call.metadata.get('clusterid')[0],
    });
    failCall(call, status.PERMISSION_DENIED, 'recorded');
  };
  const address = await startBareGrpcServer(t, serving, (server) => {
    server.addService(adsService(), { DeltaAggregatedResources: record, StreamAggregatedResources: record });
  });
  const client = await connectDeltaAds({
    address,
    rootPem: ca.rootPem,
    token: () => 'the-token',
    node: { id: ztunnelNodeId({ ip: '127.0.0.9', name: 'z', namespace: 'istio-system' }), metadata: {} },
    clusterId: 'Kubernetes',
  });
  t.after(() => {
    client.close();
  });
  await assert.rejects(client.synced, /recorded/);
  assert.deepEqual(seen, [{ authorization: 'Bearer the-token', clusterid: 'Kubernetes' }]);
});

test('after istiod drops the stream, the next one echoes the versions held and its answer applies to the same state', async (t) => {
  const ca = await createCertificateAuthority();
  const serving = await ca.issueServing({ dns: [], ips: ['127.0.0.1'] });
  const first = addressResources(FULL);
  const next = addressResources({
    workloads: [pod('a', '127.0.0.10'), pod('c', '127.0.0.12')],
    services: [HTTPBIN],
  });
  const uidOf = (name: string): string => workloadUid({ namespace: 'default', name }, 'Kubernetes');
  const response = (resources: ResourceSet, names: string[], removed: string[], nonce: string) => ({
    type_url: ADDRESS_TYPE_URL,
    nonce,
    resources: names.map((name) => {
      const r = resources.get(name);
      assert.ok(r, name);
      return {
        name,
        version: r.version,
        resource: { type_url: ADDRESS_TYPE_URL, value: Buffer.from(r.bytes) },
      };
    }),
    removed_resources: removed,
  });
  // Stream 1 answers every resource, then ends at the first ACK as a restarting istiod does;
  // stream 2 records what the client says it holds, sends c and removes b (as istiod would).
  const firstRequests: Record<string, unknown>[] = [];
  let streams = 0;
  const serve = (call: ServerDuplexStream<Record<string, unknown>, unknown>): void => {
    const stream = ++streams;
    let answered = false;
    call.on('data', (req: Record<string, unknown>) => {
      if (answered) {
        if (stream === 1) failCall(call, status.UNAVAILABLE, 'istiod shutting down');
        return;
      }
      answered = true;
      firstRequests.push(req);
      if (stream === 1) call.write(response(first, [...first.keys()], [], 'n1'));
      else call.write(response(next, [uidOf('c')], [uidOf('b')], 'n2'));
    });
  };
  const address = await startBareGrpcServer(t, serving, (server) => {
    server.addService(adsService(), { DeltaAggregatedResources: serve, StreamAggregatedResources: serve });
  });
  const changes: DiscoveryChange[] = [];
  const holdings = createDeltaAdsHoldings();
  const open = () =>
    connectDeltaAds({
      address,
      rootPem: ca.rootPem,
      token: () => 'the-token',
      node: { id: ztunnelNodeId({ ip: '127.0.0.9', name: 'z', namespace: 'istio-system' }), metadata: {} },
      clusterId: 'Kubernetes',
      holdings,
      onChange: (c) => changes.push(c),
    });
  const resumed: number[] = [];
  const client = staySubscribed({
    first: await whenSynced(await open()),
    reopen: open,
    clock: createSystemClock(),
    onResumed: ({ streams: n }) => resumed.push(n),
  });
  t.after(() => {
    client.close();
  });
  await until(() => resumed.length === 1);
  await until(() => changes.length === 2);

  assert.equal(firstRequests[0]?.['initial_resource_versions'], undefined, 'the first stream holds nothing');
  assert.deepEqual(
    firstRequests[1]?.['initial_resource_versions'],
    Object.fromEntries([...first.values()].map((r) => [r.name, r.version])),
    'the resumed stream echoes every name held with its version',
  );
  assert.deepEqual(
    client.state
      .workloads()
      .map((w) => w.name)
      .sort(),
    ['a', 'c'],
    'a kept from the first stream, c added, b removed',
  );
  assert.deepEqual(
    changes[1]?.removed.map((w) => w.name),
    ['b'],
  );
  assert.ok(client.state.serviceByVip('10.96.0.10'), 'the service held across the drop');
});
