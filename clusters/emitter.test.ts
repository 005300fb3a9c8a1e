import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createManualClock } from '../lib/index.ts';
import { createEmitter, createEventLog } from './events.ts';

test("an emitter stamps now and its own source unless the call names another, and a log line's own time", async () => {
  const clock = createManualClock({ startMs: 100 });
  const events = createEventLog();
  const emit = createEmitter(events, clock, 'kubelet');
  emit('pod-ready', 'default/a');
  await clock.advance(5);
  emit('add-workload', 'default/a', { source: 'node-agent', node: 'node-1', detail: 'x' });
  emit('sigterm', 'default/a', { atMs: 42 });
  assert.deepEqual(events.all(), [
    { atMs: 100, kind: 'pod-ready', source: 'kubelet', object: 'default/a' },
    {
      atMs: 105,
      kind: 'add-workload',
      source: 'node-agent',
      object: 'default/a',
      node: 'node-1',
      detail: 'x',
    },
    { atMs: 42, kind: 'sigterm', source: 'kubelet', object: 'default/a' },
  ]);
});
