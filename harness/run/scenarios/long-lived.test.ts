import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionLife } from '../../load/long-lived-connections.ts';
import { judgeLongLived } from './long-lived.ts';

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
  assert.ok(result.lines.some((l) => l.includes('connection 3 to httpbin-a: open')));
});
