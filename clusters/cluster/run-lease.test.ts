// The lease a live run keeps on its namespace: renewed on its period against the API server double,
// stopped at close; a renewal that fails is told and the run goes on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../lib/index.ts';
import { startRunLease } from './run-lease.ts';
import { startUserCluster } from './test/user-cluster.ts';

const NS = 'ztunnel-harness-20261129-120000-c0de';

test('renewed every period to the clock plus the lease, no more after stop(); a failed renewal told', async (t) => {
  const { api, kubeconfig } = await startUserCluster(t);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  api.put('namespaces', { metadata: { name: NS, annotations: { 'ztunnel-harness/expires-at': 'x' } } });
  let nowMs = 0;
  const clock: Clock = {
    now: () => nowMs,
    sleep: () => Promise.resolve(),
    wallOffsetMs: Date.UTC(2026, 10, 29, 12),
  };
  const told: string[] = [];
  const lease = startRunLease({ kc, namespace: NS, clock, everyMs: 20, onLogs: (l) => told.push(l) });
  const expiry = () =>
    (api.get('namespaces', '', NS)?.metadata?.['annotations'] as Record<string, string>)[
      'ztunnel-harness/expires-at'
    ];
  nowMs = 60_000;
  while (expiry() === 'x') await new Promise((r) => setTimeout(r, 5));
  assert.equal(expiry(), '2026-11-29T12:06:00.000Z');
  // The namespace gone (someone deleted it): the renewal fails, is told, the lease goes on trying.
  api.remove('namespaces', '', NS);
  while (told.length === 0) await new Promise((r) => setTimeout(r, 5));
  assert.match(
    told[0] ?? '',
    new RegExp(`the lease on namespace ${NS} was not renewed: HTTP 404 NotFound; tried again in 0\\.02 s`),
  );
  await lease.stop();
  const patches = () => api.requests.filter((r) => r.method === 'PATCH').length;
  const after = patches();
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(patches(), after, 'no renewal after stop()');
});
