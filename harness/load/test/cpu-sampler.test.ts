import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { startCpuSampler } from '../cpu-sampler.ts';

/** A child that spins (busy) or sleeps (idle) for `ms`, then exits by itself. */
function child(kind: 'busy' | 'idle', ms: number): ReturnType<typeof spawn> {
  const body =
    kind === 'busy'
      ? `const end = Date.now() + ${String(ms)}; while (Date.now() < end) {}`
      : `setTimeout(() => {}, ${String(ms)})`;
  return spawn(process.execPath, ['-e', body], { stdio: 'ignore' });
}

test('a spinning process reads as about one core, a sleeping one as about none', async () => {
  const busy = child('busy', 1500);
  const idle = child('idle', 1500);
  assert.ok(busy.pid !== undefined && idle.pid !== undefined);
  const busySampler = startCpuSampler(busy.pid, 200);
  const idleSampler = startCpuSampler(idle.pid, 200);
  await Promise.all([once(busy, 'exit'), once(idle, 'exit')]);
  const b = busySampler.stop();
  const i = idleSampler.stop();
  assert.ok(b.samples >= 4, `busy samples ${String(b.samples)}`);
  // Two cores and the test runner competing: a spinning child gets well over half a core.
  assert.ok(b.processAvgPct > 50, `busy avg ${b.processAvgPct.toFixed(1)} %`);
  assert.ok(b.processMaxPct >= b.processAvgPct - 1, 'max below avg');
  assert.ok(i.processAvgPct < 25, `idle avg ${i.processAvgPct.toFixed(1)} %`);
  assert.ok(b.machineBusyPct > 0 && b.machineBusyPct <= 100, `machine ${b.machineBusyPct.toFixed(1)} %`);
});

test('a pid that does not exist gives zero samples instead of throwing', () => {
  const usage = startCpuSampler(2 ** 22 + 12345, 50).stop();
  assert.equal(usage.samples, 0);
  assert.equal(usage.processAvgPct, 0);
});
