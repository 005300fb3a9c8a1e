import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createManualClock } from '../../lib/index.ts';
import { runTimedStep } from './timed-step.ts';
import type { StepEnd } from './timed-step.ts';

test('a step is timed on the clock it is given, from start to settle, and its result returned', async () => {
  const clock = createManualClock();
  const ends: StepEnd[] = [];
  const result = await runTimedStep({
    name: 'control plane',
    now: () => clock.now(),
    body: async () => {
      await clock.advance(250);
      return 'up';
    },
    onEnd: (end) => ends.push(end),
  });
  assert.equal(result, 'up');
  assert.deepEqual(ends, [{ name: 'control plane', ms: 250, ok: true }]);
});

test('a failed step is reported not ok with its time, and its error goes on as it was', async () => {
  const clock = createManualClock();
  const ends: StepEnd[] = [];
  const failure = new Error('no kubelet');
  await assert.rejects(
    runTimedStep({
      name: 'kubelets',
      now: () => clock.now(),
      body: async () => {
        await clock.advance(40);
        throw failure;
      },
      onEnd: (end) => ends.push(end),
    }),
    (err: unknown) => err === failure,
  );
  assert.deepEqual(ends, [{ name: 'kubelets', ms: 40, ok: false }]);
});
