import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionLife } from '../../../apps/long-lived-client/long-lived-connections.ts';
import type { LifecycleEvent } from '../../../clusters/events.ts';
import { judgeLongLived, ztunnelStopByNode } from './long-lived.ts';

const life = (over: Partial<ConnectionLife>): ConnectionLife => ({
  slot: 0,
  generation: 0,
  pod: 'httpbin-a',
  node: 'node-1',
  openedAtMs: 1000,
  end: 'open',
  requestsOk: 10,
  requestsFailed: 0,
  ...over,
});

test('long-lived connections: a FIN or a RST at SIGTERM + deadline counts as ended there; an early end does not', () => {
  const sigterms = new Map([
    ['node-1', 5000],
    ['node-2', 6000],
  ]);
  const result = judgeLongLived(
    [
      life({ slot: 0, end: 'closed', endedAtMs: 5000 + 10_004 }),
      life({ slot: 1, node: 'node-2', end: 'reset', endedAtMs: 6000 + 2000 }),
      life({ slot: 2, end: 'reset', endedAtMs: 5000 + 10_010 }),
      life({ slot: 3, end: 'open' }),
      life({ slot: 0, generation: 1, openedAtMs: 15_010, requestsFailed: 0 }),
      life({ slot: 1, generation: 1, openedAtMs: 8010, requestsFailed: 2, end: 'ECONNREFUSED' }),
    ],
    sigterms,
    10_000,
    0,
  );
  assert.equal(result.columns['long_lived_connections'], 4);
  assert.equal(result.columns['long_lived_fin'], 1);
  assert.equal(result.columns['long_lived_reset'], 2);
  assert.equal(result.columns['long_lived_ended_at_deadline'], 2);
  assert.equal(result.columns['long_lived_end_offset_s'], '10.004 2.000 10.010');
  assert.equal(result.columns['long_lived_reconnect_failures'], 2);
  // Reconnect failures count against the verdict; the documented ends do not.
  assert.equal(result.failed, 2);
  assert.ok(result.lines.some((l) => l.includes('connection 3 to httpbin-a on node-1: open')));
});

test('a long-lived connection still open at the load end says why: its node deadline after the end, or no stop seen', () => {
  const result = judgeLongLived(
    [
      life({ slot: 0, end: 'open', endedAtMs: 25_000 }),
      life({ slot: 1, node: 'node-2', end: 'open', endedAtMs: 25_000 }),
    ],
    new Map([['node-1', 17_000]]),
    10_000,
    0,
  );
  assert.equal(result.columns['long_lived_ended_at_deadline'], 0);
  assert.ok(
    result.lines.some((l) =>
      l.includes(
        "connection 0 to httpbin-a on node-1: open at 25.000 s: node-1's old ztunnel was stopped at 17.000 s, its deadline at 27.000 s, after the load ended",
      ),
    ),
    result.lines.join('\n'),
  );
  assert.ok(result.lines.some((l) => l.includes("node-2's ztunnel was not stopped during the load")));
});

test("each node's old ztunnel stop: its first SIGTERM where signals are seen, else its pod's deletion (kind)", () => {
  const at = (kind: LifecycleEvent['kind'], object: string, node: string, atMs: number): LifecycleEvent => ({
    kind,
    object,
    node,
    atMs,
    source: 'api-server',
  });
  const local = ztunnelStopByNode([
    at('pod-deleting', 'istio-system/ztunnel-a', 'node-1', 900),
    at('sigterm', 'istio-system/ztunnel-a', 'node-1', 1000),
    at('sigterm', 'istio-system/ztunnel-b', 'node-1', 9000),
    at('sigterm', 'default/httpbin-x', 'node-2', 500),
  ]);
  assert.deepEqual([[...local.byNode], local.from], [[['node-1', 1000]], 'SIGTERM']);
  const kind = ztunnelStopByNode([
    at('pod-deleting', 'default/httpbin-x', 'node-1', 100),
    at('pod-deleting', 'istio-system/ztunnel-a', 'node-1', 2000),
    at('pod-deleting', 'istio-system/ztunnel-c', 'node-2', 3000),
    at('pod-deleting', 'istio-system/ztunnel-b', 'node-1', 7000),
  ]);
  assert.deepEqual(
    [...kind.byNode],
    [
      ['node-1', 2000],
      ['node-2', 3000],
    ],
  );
  assert.match(kind.from, /deletion/);
});
