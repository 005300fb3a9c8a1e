import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManualClock } from '../../lib/index.ts';
import { createDebouncer } from './debouncer.ts';

function setup(pushMs = 0) {
  const clock = createManualClock({ startMs: 0 });
  const pushes: number[] = [];
  const debouncer = createDebouncer({
    clock,
    quietMs: 100,
    maxMs: 10_000,
    push: async () => {
      pushes.push(clock.now());
      if (pushMs > 0) await clock.sleep(pushMs);
    },
    onError: (err) => {
      throw err;
    },
  });
  return { clock, pushes, debouncer };
}

describe('debounce (istiod PILOT_DEBOUNCE_AFTER 100 ms, PILOT_DEBOUNCE_MAX 10 s)', () => {
  it('pushes once, 100 ms after the last of a quick series of events', async () => {
    const { clock, pushes, debouncer } = setup();
    debouncer.trigger();
    await clock.advance(50);
    debouncer.trigger();
    await clock.advance(70);
    debouncer.trigger();
    await clock.advance(99);
    assert.deepEqual(pushes, []);
    await clock.advance(1);
    assert.deepEqual(pushes, [220]);
    await clock.advance(1000);
    assert.deepEqual(pushes, [220]);
  });

  it('pushes at 10 s when events never stop', async () => {
    const { clock, pushes, debouncer } = setup();
    for (let t = 0; t < 10_500; t += 50) {
      debouncer.trigger();
      await clock.advance(50);
    }
    assert.equal(pushes[0], 10_000);
  });

  it('keeps one push in flight; events during it are pushed after it, once quiet', async () => {
    const { clock, pushes, debouncer } = setup(300);
    debouncer.trigger();
    await clock.advance(100); // push 1 starts at 100 and runs until 400
    await clock.advance(50);
    debouncer.trigger(); // at 150: quiet by 250, but push 1 is still running
    await clock.advance(200);
    assert.deepEqual(pushes, [100]);
    await clock.advance(50);
    assert.deepEqual(pushes, [100, 400]);
    debouncer.close();
  });
});
