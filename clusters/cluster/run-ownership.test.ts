// What makes a namespace a run's: every mark, consistent, and whether its run is live by its lease.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertRunNamespaceName, expiryAt, LEASE_MS, ownershipOf } from './run-ownership.ts';
import type { NamespaceFacts } from './run-ownership.ts';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const NS = 'ztunnel-harness-20261129-115500-beef';

const ours = (over: Partial<NamespaceFacts> = {}): NamespaceFacts => ({
  name: NS,
  labels: { 'app.kubernetes.io/managed-by': 'ztunnel-harness', 'ztunnel-harness/run': NS },
  annotations: { 'ztunnel-harness/expires-at': new Date(NOW - 1000).toISOString() },
  isTerminating: false,
  ...over,
});

test('a namespace with every mark is ours; live while its expiry is ahead, over once it has passed', () => {
  assert.deepEqual(ownershipOf(ours(), NOW), {
    ours: true,
    expiresAtMs: NOW - 1000,
    live: false,
    isTerminating: false,
  });
  const renewed = ours({ annotations: { 'ztunnel-harness/expires-at': expiryAt(NOW) } });
  const o = ownershipOf(renewed, NOW);
  assert.ok(o.ours && o.live && o.expiresAtMs === NOW + LEASE_MS, JSON.stringify(o));
  // A renewal LEASE_MS ago has lapsed exactly now.
  const lapsed = ownershipOf(
    ours({ annotations: { 'ztunnel-harness/expires-at': expiryAt(NOW - LEASE_MS) } }),
    NOW,
  );
  assert.ok(lapsed.ours && !lapsed.live);
});

test('labelled like ours but not ours: each missing or inconsistent mark named', () => {
  const cases: [Partial<NamespaceFacts>, RegExp][] = [
    [
      {
        name: 'team-a',
        labels: { 'app.kubernetes.io/managed-by': 'ztunnel-harness', 'ztunnel-harness/run': 'team-a' },
      },
      /prefix/,
    ],
    [
      {
        labels: {
          'app.kubernetes.io/managed-by': 'ztunnel-harness',
          'ztunnel-harness/run': 'ztunnel-harness-other',
        },
      },
      /not its own name/,
    ],
    [{ labels: { 'app.kubernetes.io/managed-by': 'helm', 'ztunnel-harness/run': NS } }, /managed-by/],
    [{ annotations: {} }, /expires-at/],
    [{ annotations: { 'ztunnel-harness/expires-at': 'tomorrow' } }, /expires-at/],
  ];
  for (const [over, why] of cases) {
    const o = ownershipOf(ours(over), NOW);
    assert.ok(!o.ours, JSON.stringify(over));
    assert.match(o.why, why);
  }
});

test('a given run namespace name must carry the prefix and be a DNS label', () => {
  assertRunNamespaceName(NS);
  assert.throws(() => {
    assertRunNamespaceName('default');
  }, /starting ztunnel-harness-/);
  assert.throws(() => {
    assertRunNamespaceName('ztunnel-harness-UPPER');
  }, /DNS label/);
});
