import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { connectDiscovery } from '../discovery/index.ts';
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
});
