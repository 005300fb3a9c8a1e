// The echo drain's three ends on a manual clock: a quiet second, ten seconds of steady requests, a
// second signal (istio/istio pkg/test/echo/cmd/server/main.go WaitForShutdown).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createManualClock } from '../../lib/index.ts';
import { echoDrain } from './echo-drain.ts';
import type { EchoDrainEnd } from './echo-drain.ts';

function drain(
  clock: ReturnType<typeof createManualClock>,
  last: { ms?: number },
  forced = new AbortController(),
) {
  let end: EchoDrainEnd | undefined;
  let endMs: number | undefined;
  void echoDrain({ clock, lastRequestMs: () => last.ms, forced: forced.signal }).then((e) => {
    end = e;
    endMs = clock.now();
  });
  return { result: () => ({ end, endMs }), forced };
}

test('no request after SIGTERM: it stops one second later', async () => {
  const clock = createManualClock();
  const d = drain(clock, { ms: -5000 });
  await clock.advance(999);
  assert.deepEqual(d.result(), { end: undefined, endMs: undefined });
  await clock.advance(1);
  assert.deepEqual(d.result(), { end: 'quiet', endMs: 1000 });
});

test('each request starts the second again; the first quiet second ends it', async () => {
  const clock = createManualClock();
  const last: { ms?: number } = {};
  const d = drain(clock, last);
  for (const at of [400, 1300, 2200]) {
    await clock.advance(at - clock.now());
    last.ms = at;
  }
  await clock.advance(3199 - clock.now());
  assert.equal(d.result().end, undefined, 'within a second of the last request');
  await clock.advance(1);
  assert.deepEqual(d.result(), { end: 'quiet', endMs: 3200 });
});

test('requests that never stop: ten seconds after SIGTERM at the latest', async () => {
  const clock = createManualClock();
  const last: { ms?: number } = {};
  const d = drain(clock, last);
  while (clock.now() < 12_000 && d.result().end === undefined) {
    await clock.advance(40);
    last.ms = clock.now();
  }
  assert.deepEqual(d.result(), { end: 'max', endMs: 10_000 });
});

test('a second signal ends it at once', async () => {
  const clock = createManualClock();
  const d = drain(clock, {});
  await clock.advance(300);
  d.forced.abort();
  await new Promise<void>((r) => setImmediate(r));
  assert.deepEqual(d.result(), { end: 'forced', endMs: 300 });
});
