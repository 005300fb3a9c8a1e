import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionLife } from '../load/long-lived-connections.ts';
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

test('long-lived connections: reset at SIGTERM + deadline counts, an early reset or a FIN does not', () => {
  const sigterms = new Map([
    ['node-1', 5000],
    ['node-2', 6000],
  ]);
  const result = judgeLongLived(
    [
      life({ slot: 0, end: 'reset', endedAtMs: 5000 + 10_004 }),
      life({ slot: 1, node: 'node-2', end: 'reset', endedAtMs: 6000 + 2000 }),
      life({ slot: 2, end: 'closed', endedAtMs: 15_000 }),
      life({ slot: 0, generation: 1, openedAtMs: 15_010, requestsFailed: 0 }),
      life({ slot: 1, generation: 1, openedAtMs: 8010, requestsFailed: 2, end: 'ECONNREFUSED' }),
    ],
    sigterms,
    10_000,
    0,
  );
  assert.equal(result.columns['long_lived_connections'], 3);
  assert.equal(result.columns['long_lived_reset'], 2);
  assert.equal(result.columns['long_lived_reset_at_deadline'], 1);
  assert.equal(result.columns['long_lived_reset_offset_s'], '10.004 2.000');
  assert.equal(result.columns['long_lived_reconnect_failures'], 2);
  // Reconnect failures count against the verdict; the documented resets do not.
  assert.equal(result.failed, 2);
  assert.ok(result.lines.some((l) => l.includes('connection 2 to httpbin-a: closed at 15.000 s')));
});
