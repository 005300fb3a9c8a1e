import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createManualClock, createSystemClock, fromWallMs, toWallMs, waitAtMost } from './clock.ts';

test('system clock is monotonic and its wall offset maps to Date.now()', async () => {
  const clock = createSystemClock();
  const a = clock.now();
  await clock.sleep(5);
  const b = clock.now();
  assert.ok(b - a >= 4, `slept 5 ms but the clock moved ${String(b - a)} ms`);
  assert.ok(Math.abs(toWallMs(clock, clock.now()) - Date.now()) < 50);
  assert.equal(fromWallMs(clock, toWallMs(clock, 1234.5)), 1234.5);
});

test('system clock sleep rejects with the abort reason', async () => {
  const clock = createSystemClock();
  const ac = new AbortController();
  const pending = clock.sleep(10_000, ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(pending, /stop/);
});

test('manual clock resolves sleeps in due order, only when advanced past them', async () => {
  const clock = createManualClock({ startMs: 100 });
  const order: string[] = [];
  void clock.sleep(30).then(() => order.push(`b@${String(clock.now())}`));
  void clock.sleep(10).then(() => order.push(`a@${String(clock.now())}`));
  await clock.advance(9);
  assert.deepEqual(order, []);
  assert.equal(clock.pendingCount(), 2);
  await clock.advance(25);
  assert.deepEqual(order, ['a@110', 'b@130']);
  assert.equal(clock.now(), 134);
});

test('manual clock runs sleeps scheduled by a woken sleeper within the same advance', async () => {
  const clock = createManualClock();
  const seen: number[] = [];
  void (async () => {
    for (let i = 0; i < 3; i++) {
      await clock.sleep(100);
      seen.push(clock.now());
    }
  })();
  await clock.advance(250);
  assert.deepEqual(seen, [100, 200]);
  await clock.advance(50);
  assert.deepEqual(seen, [100, 200, 300]);
});

test('manual clock sleep is cancelled by its signal and leaves no timer', async () => {
  const clock = createManualClock();
  const ac = new AbortController();
  const pending = clock.sleep(50, ac.signal);
  ac.abort(new Error('cancelled'));
  await assert.rejects(pending, /cancelled/);
  assert.equal(clock.pendingCount(), 0);
});

test('waitAtMost: the work if it settles in time, else a timeout; no timer left behind', async () => {
  const clock = createManualClock();
  const quick = waitAtMost(clock, Promise.resolve('v'), 100);
  assert.deepEqual(await quick, { done: true, value: 'v' });
  assert.equal(clock.pendingCount(), 0);

  const never = new Promise<string>(() => undefined);
  const slow = waitAtMost(clock, never, 100);
  await clock.advance(99);
  assert.equal(clock.pendingCount(), 1);
  await clock.advance(1);
  assert.deepEqual(await slow, { done: false });
  assert.equal(clock.pendingCount(), 0);
});
