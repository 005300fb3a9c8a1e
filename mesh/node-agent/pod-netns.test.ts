import assert from 'node:assert/strict';
import { link, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findPodNetns, podUidOfCgroup } from './pod-netns.ts';

const UID = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';

test("the pod uid in a process's cgroup, as the systemd and the cgroupfs drivers spell it", () => {
  const systemd = `0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UID.replaceAll('-', '_')}.slice/cri-containerd-0123.scope\n`;
  const cgroupfs = `0::/kubepods/besteffort/pod${UID}/0123abcd\n`;
  // Read from a pod in another cgroup namespace, the path is relative to the reader's root.
  const relative = `0::/../../kubepods-burstable-pod${UID.replaceAll('-', '_')}.slice/cri-containerd-9.scope\n`;
  assert.equal(podUidOfCgroup(systemd), UID);
  assert.equal(podUidOfCgroup(cgroupfs), UID);
  assert.equal(podUidOfCgroup(relative), UID);
  assert.equal(podUidOfCgroup('0::/system.slice/containerd.service\n'), undefined);
  assert.equal(podUidOfCgroup('0::/\n'), undefined);
});

test("the pod's namespace is the one of its lowest pid (the sandbox's); a pod with no process has none", async (t) => {
  const proc = await mkdtemp(join(tmpdir(), 'proc-'));
  t.after(() => rm(proc, { recursive: true, force: true }));
  const add = async (pid: string, cgroup: string): Promise<void> => {
    await mkdir(join(proc, pid), { recursive: true });
    await writeFile(join(proc, pid, 'cgroup'), cgroup);
  };
  await add('1', '0::/init.scope\n');
  await add('812', `0::/kubepods/besteffort/pod${UID}/app\n`);
  await add('95', `0::/kubepods/besteffort/pod${UID}/pause\n`);
  await add('self', '0::/\n');
  await mkdir(join(proc, '400')); // a process gone before its cgroup is read
  assert.equal(await findPodNetns(UID, { procRoot: proc }), join(proc, '95', 'ns', 'net'));
  assert.equal(await findPodNetns('00000000-0000-0000-0000-000000000000', { procRoot: proc }), undefined);
  // Named by its pin: the file of the pin folder with the same inode (here a hard link stands in
  // for the runtime's bind mount of the namespace).
  const pins = join(proc, 'pins');
  await mkdir(join(proc, '95', 'ns'));
  await writeFile(join(proc, '95', 'ns', 'net'), '');
  await mkdir(pins);
  await writeFile(join(pins, 'cni-other'), '');
  await link(join(proc, '95', 'ns', 'net'), join(pins, 'cni-1234'));
  assert.equal(await findPodNetns(UID, { procRoot: proc, pinDir: pins }), join(pins, 'cni-1234'));
  await rm(join(pins, 'cni-1234'));
  assert.equal(await findPodNetns(UID, { procRoot: proc, pinDir: pins }), undefined);
});
