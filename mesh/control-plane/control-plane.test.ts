import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { connectDiscovery } from '../discovery/index.ts';
import { ADDRESS_TYPE_URL, AUTHORIZATION_TYPE_URL, decodeWorkload } from '../xds/index.ts';
import { createDeltaClient, ztunnelNode } from '../xds/test/delta-client.ts';
import type { ClusterSource, PodView } from './cluster-source.ts';
import { startControlPlane } from './control-plane.ts';
import type { PushReport } from './control-plane.ts';

const pod = (n: number, patch: Partial<PodView> = {}): PodView => ({
  uid: `uid-${String(n)}`,
  name: `httpbin-${String(n)}`,
  namespace: 'default',
  nodeName: 'node-1',
  podIp: `127.93.2.${String(n)}`,
  serviceAccount: 'httpbin',
  labels: { app: 'httpbin' },
  isMeshed: true,
  isReady: true,
  isDeleting: false,
  isTerminal: false,
  ...patch,
});

function fakeSource(pods: PodView[]): ClusterSource & { set(pods: PodView[]): void } {
  let current = pods;
  const listeners = new Set<() => void>();
  return {
    pods: () => current,
    services: () => [
      {
        namespace: 'default',
        name: 'httpbin',
        vip: '127.93.1.1',
        selector: { app: 'httpbin' },
        ports: [{ port: 8000, targetPort: 8080 }],
      },
    ],
    onChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    set(next) {
      current = next;
      for (const l of listeners) l();
    },
  };
}

describe('control plane', () => {
  it('pushes UNHEALTHY on deletion and removal on terminal, after debounce and push latency', async (t) => {
    const source = fakeSource([pod(1), pod(2), pod(3, { isMeshed: false })]);
    const reports: PushReport[] = [];
    const clock = createSystemClock();
    const cp = await startControlPlane({
      source,
      clock,
      log: createLogger({ component: 'test', level: 'error' }),
      host: '127.93.0.200',
      debounceQuietMs: 100,
      debounceMaxMs: 10_000,
      pushLatencyMs: 50,
      ports: { xds: 0, ca: 0 },
      authenticate: () => Promise.resolve('no CA callers in this test'),
      onPush: (r) => reports.push(r),
    });
    t.after(() => cp.close());
    const [host = '', port = ''] = cp.xdsAddress.split(':');
    const client = await connectDiscovery({ host, port: Number(port), node: 'node-1', instance: 'z' });
    t.after(() => {
      client.close();
    });
    await client.synced;
    const svc = client.state.serviceByVip('127.93.1.1');
    assert.ok(svc);
    assert.deepEqual(
      client.state.endpointsOf(svc).map((w) => [w.name, w.status, w.protocol]),
      [
        ['httpbin-1', 'HEALTHY', 'HBONE'],
        ['httpbin-2', 'HEALTHY', 'HBONE'],
        ['httpbin-3', 'HEALTHY', 'TCP'],
      ],
    );

    const deletedAt = clock.now();
    source.set([pod(1, { isDeleting: true }), pod(2), pod(3, { isMeshed: false })]);
    await cp.idle();
    const unhealthy = reports.at(-1);
    assert.ok(unhealthy);
    assert.deepEqual(
      unhealthy.becameUnhealthy.map((w) => w.name),
      ['httpbin-1'],
    );
    assert.ok(unhealthy.atMs - deletedAt >= 150, 'debounce 100 ms + latency 50 ms');
    assert.equal(unhealthy.acked, 1);
    assert.equal(client.state.workloadByIp('127.93.2.1')?.status, 'UNHEALTHY');

    source.set([pod(1, { isDeleting: true, isTerminal: true }), pod(2), pod(3, { isMeshed: false })]);
    await cp.idle();
    assert.deepEqual(
      reports.at(-1)?.removed.map((w) => w.name),
      ['httpbin-1'],
    );
    assert.equal(client.state.workloadByIp('127.93.2.1'), undefined);
  });

  it("serves istio/ztunnel's delta ADS from the same pushes: a pod added later arrives, a removed one is removed", async (t) => {
    const source = fakeSource([pod(1)]);
    const cp = await startControlPlane({
      source,
      clock: createSystemClock(),
      log: createLogger({ component: 'test', level: 'error' }),
      host: '127.93.0.201',
      debounceQuietMs: 10,
      debounceMaxMs: 1_000,
      pushLatencyMs: 0,
      ports: { xds: 0, ca: 0 },
      authenticate: (token) =>
        Promise.resolve(
          token === 'ztunnel-token'
            ? {
                namespace: 'istio-system',
                serviceAccount: 'ztunnel',
                podName: 'ztunnel-a',
                podUid: 'u',
                nodeName: 'node-1',
              }
            : 'invalid token',
        ),
    });
    t.after(() => cp.close());
    const client = createDeltaClient(cp.ztunnelXdsAddress, cp.ca.rootPem);
    t.after(() => {
      client.close();
    });
    const { stream, next } = client.open('ztunnel-token');
    const node = ztunnelNode(
      'ztunnel~127.93.0.9~ztunnel-a.istio-system~istio-system.svc.cluster.local',
      'node-1',
    );
    stream.write({ node, type_url: ADDRESS_TYPE_URL });
    stream.write({ node, type_url: AUTHORIZATION_TYPE_URL });
    const first = await next();
    assert.deepEqual(
      first.resources.map((r) => r.name),
      ['Kubernetes//Pod/default/httpbin-1', 'default/httpbin.default.svc.cluster.local'],
    );
    assert.deepEqual((await next()).resources, []);
    source.set([pod(1), pod(2)]);
    const added = await next();
    assert.deepEqual(
      added.resources.map((r) => decodeWorkload(r.resource.value)).map((w) => [w.name, w.node, w.status]),
      [['httpbin-2', 'node-1', 'HEALTHY']],
    );
    source.set([pod(2)]);
    assert.deepEqual((await next()).removed_resources, ['Kubernetes//Pod/default/httpbin-1']);
  });
});
