import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createManualClock } from './clock.ts';
import { createProgress, formatDuration, startTicker } from './progress.ts';

test('durations read like 45s and 2m05s', () => {
  assert.equal(formatDuration(44_600), '45s');
  assert.equal(formatDuration(125_000), '2m05s');
});

test('non-terminal progress prints a line at most every interval, with time left from the counted rate', async () => {
  const clock = createManualClock();
  const out: string[] = [];
  const progress = createProgress({
    phase: 'k6 build',
    clock,
    write: (t) => out.push(t),
    isTty: false,
    lineIntervalMs: 10_000,
  });
  progress.update('starting');
  await clock.advance(60_000);
  progress.update('fetching');
  await clock.advance(5_000);
  progress.update('100 of 400 packages', 100, 400);
  await clock.advance(5_000);
  progress.update('200 of 400 packages', 200, 400);
  progress.finish('done');
  assert.deepEqual(out, [
    'k6 build: starting, 0s elapsed\n',
    'k6 build: fetching, 1m00s elapsed\n',
    // 100 packages in the 5 s since counting began: 200 more take 10 s (the first minute is not counted).
    'k6 build: 200 of 400 packages, 1m10s elapsed, about 10s left\n',
    'k6 build: done (1m10s)\n',
  ]);
});

test('terminal progress rewrites one line and ends it', () => {
  const clock = createManualClock();
  const out: string[] = [];
  const progress = createProgress({ phase: 'load', clock, write: (t) => out.push(t), isTty: true });
  progress.update('a');
  progress.update('b');
  progress.finish('ok');
  assert.deepEqual(out, [
    '\r\x1b[2Kload: a, 0s elapsed',
    '\r\x1b[2Kload: b, 0s elapsed',
    '\r\x1b[2Kload: ok (0s)\n',
  ]);
});

test('a ticker ticks on its clock until stopped', async () => {
  const clock = createManualClock();
  let ticks = 0;
  const stop = startTicker({ clock, intervalMs: 1000, tick: () => ticks++ });
  await clock.advance(3500);
  assert.equal(ticks, 3);
  stop();
  await clock.advance(5000);
  assert.equal(ticks, 3);
  assert.equal(clock.pendingCount(), 0);
});
