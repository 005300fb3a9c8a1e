import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManualClock } from '../../lib/index.ts';
import { DEFAULT_DRAIN_SETTINGS, drainLikePilotAgent } from './drain.ts';

describe('pilot-agent drain', () => {
  it('default: drains at once and exits after terminationDrainDuration, whatever is active', async () => {
    const clock = createManualClock({ startMs: 0 });
    let drained = false;
    const done = drainLikePilotAgent({
      clock,
      settings: DEFAULT_DRAIN_SETTINGS,
      startDrain: () => (drained = true),
      activeConnections: () => 3,
    });
    assert.equal(drained, true);
    await clock.advance(5000);
    assert.deepEqual(await done, { waitedMs: 5000, reason: 'drain-duration' });
  });

  it('EXIT_ON_ZERO_ACTIVE_CONNECTIONS: waits the minimum, then polls each second until zero', async () => {
    const clock = createManualClock({ startMs: 0 });
    let active = 1;
    const polls: number[] = [];
    const done = drainLikePilotAgent({
      clock,
      settings: { ...DEFAULT_DRAIN_SETTINGS, exitOnZeroActiveConnections: true },
      startDrain: () => undefined,
      activeConnections: () => active,
      onPoll: () => polls.push(clock.now()),
    });
    await clock.advance(7000);
    assert.deepEqual(polls, [5000, 6000, 7000]);
    active = 0;
    await clock.advance(1000);
    assert.deepEqual(await done, { waitedMs: 8000, reason: 'zero-connections' });
  });
});
