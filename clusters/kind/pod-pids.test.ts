import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createManualClock } from '../../lib/index.ts';
import { createPodPids, podUidOfCgroup } from './pod-pids.ts';

const UID = 'c376c442-c8f7-4ff0-a14c-8ae31f64943d';
const LATER = '0b1e0a55-8f4f-4c9a-9d3e-2f2f7a0f6a11';

/** A cgroup folder with its cgroup.procs. */
function cgroup(dir: string, pids: number[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'cgroup.procs'), pids.map((p) => `${String(p)}\n`).join(''));
}

test("a pod cgroup's uid: cgroupfs pod<uid>, systemd ...-pod<uid_>.slice; anything else none", () => {
  assert.equal(podUidOfCgroup(`pod${UID}`), UID);
  assert.equal(podUidOfCgroup(`kubelet-kubepods-besteffort-pod${UID.replaceAll('-', '_')}.slice`), UID);
  assert.equal(podUidOfCgroup('kubepods'), undefined);
  assert.equal(podUidOfCgroup(`pod${UID}x`), undefined);
});

test("a kind pod's processes: its cgroup's and its containers', found by uid under a node container's tree; a new pod after a rescan, a gone one none", async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'pod-pids-'));
  t.after(() => {
    rmSync(root, { recursive: true, force: true });
  });
  const node = join(root, 'docker', 'a1b2', 'kubelet', 'kubepods');
  const pod = join(node, 'besteffort', `pod${UID}`);
  cgroup(pod, []);
  cgroup(join(pod, 'sandbox'), [4100]);
  cgroup(join(pod, 'app'), [4200, 4201]);
  cgroup(join(root, 'docker', 'a1b2'), [1]); // the node container's own processes are no pod's
  const clock = createManualClock();
  const pids = createPodPids({ clock, roots: [join(root, 'missing'), root] });
  assert.deepEqual(pids.of(UID)?.sort(), [4100, 4200, 4201]);
  assert.equal(pids.of(''), undefined);
  // A pod whose cgroup appears after a walk: looked for again only RESCAN_MS (2 s) later.
  assert.equal(pids.of(LATER), undefined);
  cgroup(join(node, 'burstable', `pod${LATER}`), []);
  cgroup(join(node, 'burstable', `pod${LATER}`, 'app'), [5000]);
  assert.equal(pids.of(LATER), undefined);
  await clock.advance(2000);
  assert.deepEqual(pids.of(LATER), [5000]);
  // A pod's cgroup removed (the pod gone): none, and forgotten.
  rmSync(pod, { recursive: true });
  assert.equal(pids.of(UID), undefined);
});
