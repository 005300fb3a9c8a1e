import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkloadEntry } from '../../mesh/discovery/index.ts';
import { pickEndpoint } from './pick-endpoint.ts';

const w = (uid: string, status: WorkloadEntry['status'], capacity = 1): WorkloadEntry => ({
  uid,
  name: uid,
  namespace: 'default',
  serviceAccount: 'sa',
  node: 'n',
  podIp: '127.0.0.1',
  status,
  protocol: 'HBONE',
  capacity,
  services: [],
});

test('only HEALTHY endpoints are chosen, weighted by capacity', () => {
  const eps = [w('a', 'HEALTHY', 1), w('b', 'UNHEALTHY', 5), w('c', 'HEALTHY', 3)];
  assert.equal(pickEndpoint(eps, () => 0)?.uid, 'a');
  assert.equal(pickEndpoint(eps, () => 0.24)?.uid, 'a');
  assert.equal(pickEndpoint(eps, () => 0.26)?.uid, 'c');
  assert.equal(pickEndpoint(eps, () => 0.999)?.uid, 'c');
  const seen = new Map<string, number>();
  let seed = 7;
  const lcg = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 4000; i++) {
    const uid = pickEndpoint(eps, lcg)?.uid ?? 'none';
    seen.set(uid, (seen.get(uid) ?? 0) + 1);
  }
  assert.equal(seen.get('b'), undefined);
  const share = (seen.get('c') ?? 0) / 4000;
  assert.ok(share > 0.7 && share < 0.8, `c got ${share.toFixed(3)} of picks, expected ~0.75`);
});

test('no healthy endpoint -> undefined (no healthy upstream)', () => {
  assert.equal(pickEndpoint([w('a', 'UNHEALTHY'), w('b', 'HEALTHY', 0)]), undefined);
  assert.equal(pickEndpoint([]), undefined);
});
