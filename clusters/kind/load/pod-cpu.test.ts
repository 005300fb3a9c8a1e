import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Clock } from '../../../lib/index.ts';
import { waitUntil } from '../../../lib/test/wait-until.ts';
import { isPodCgroup, parseCpuCounter, startPodCpuSampler } from './pod-cpu.ts';

const UID = 'c376c442-c8f7-4ff0-a14c-8ae31f64943d';

test("a pod's cgroup by its uid: cgroupfs pod<uid>, systemd's slice with underscores", () => {
  assert.ok(isPodCgroup(`pod${UID}`, UID));
  assert.ok(isPodCgroup('kubelet-kubepods-besteffort-podc376c442_c8f7_4ff0_a14c_8ae31f64943d.slice', UID));
  assert.ok(!isPodCgroup('kubelet-kubepods-besteffort-podc376c442_c8f7_4ff0_a14c_000000000000.slice', UID));
  assert.ok(!isPodCgroup('kubelet-kubepods-besteffort.slice', UID));
});

test("the counter in ns: cgroup v1's cpuacct.usage, v2's cpu.stat usage_usec", () => {
  assert.equal(parseCpuCounter('123456789\n', { path: '/x/cpuacct.usage', nsPerUnit: 1 }), 123_456_789);
  const stat = 'usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n';
  assert.equal(parseCpuCounter(stat, { path: '/x/cpu.stat', nsPerUnit: 1000 }), 2_500_000);
  assert.equal(parseCpuCounter('', { path: '/x/cpuacct.usage', nsPerUnit: 1 }), undefined);
});

/** A clock that advances by each sleep, and a counter file bumped by `nsPerSleep` on each. */
function steppedClock(onSleep: () => Promise<void>): Clock {
  let now = 0;
  return {
    now: () => now,
    wallOffsetMs: 0,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new Error('stopped');
      now += ms;
      await onSleep();
    },
  };
}

test('the sampler gives % of one core per interval, and ends its series when the counter goes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pod-cpu-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'cpuacct.usage');
  // 0.5 s of CPU per 1 s, then 0.25 s, then the file is emptied (the pod's cgroup removed).
  const counters = ['500000000', '750000000', ''];
  await writeFile(path, '0');
  let sleeps = 0;
  const clock = steppedClock(async () => {
    await writeFile(path, counters[sleeps] ?? '');
    sleeps += 1;
  });
  const sampler = startPodCpuSampler({ file: { path, nsPerUnit: 1 }, clock, intervalMs: 1000 });
  // Its series ends by itself at the third interval (the counter gone); stop() then only waits.
  await waitUntil('the counter is gone', () => sleeps === counters.length);
  const samples = await sampler.stop();
  assert.deepEqual(
    samples.map((s) => [s.tMs, Math.round(s.cpuPct)]),
    [
      [1000, 50],
      [2000, 25],
    ],
  );
});
