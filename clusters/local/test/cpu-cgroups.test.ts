// The kernel's cgroup v1 hierarchies for real (root): a process started in a group is in it, as
// /proc/<pid>/cgroup and its allowed CPUs say; close moves a live one out and removes the groups.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import {
  cpuIsolationUnavailable,
  createCpuGroups,
  GENERATOR_GROUP,
  parseCpuList,
  SYSTEM_CGROUP_ROOTS,
} from '../cpu-cgroups.ts';

const whyNot = await cpuIsolationUnavailable('nodes-pinned');
const name = `ztunnel-harness-test-${String(process.pid)}`;

/** The process's group in a v1 hierarchy (`4:cpu:/a/b` -> `/a/b`). */
async function groupOf(pid: number, controller: string): Promise<string | undefined> {
  const lines = (await readFile(`/proc/${String(pid)}/cgroup`, 'utf8')).split('\n');
  return lines.map((l) => l.split(':')).find(([, c]) => c?.split(',').includes(controller))?.[2];
}

/** The shell writes the PID, then execs: poll until the move shows (it takes well under a second). */
async function waitForGroup(pid: number, controller: string, want: string): Promise<string | undefined> {
  for (let i = 0; i < 100; i++) {
    const now = await groupOf(pid, controller);
    if (now === want) return now;
    await sleep(10);
  }
  return groupOf(pid, controller);
}

test(
  'a process started in a node group is in it, the generator alone on the last CPU; close moves it out and removes every group',
  { skip: whyNot ?? false },
  async (t) => {
    const groups = await createCpuGroups({ mode: 'nodes-pinned', name, nodes: ['node-1'] });
    t.after(() => groups.close());
    const start = (group: string) => {
      const [file = '', ...args] = groups.command(group, ['sleep', '30']);
      const child = spawn(file, args, { stdio: 'ignore' });
      t.after(() => child.kill('SIGKILL'));
      return child.pid ?? -1;
    };
    const node = start('node-1');
    const generator = start(GENERATOR_GROUP);
    assert.equal(await waitForGroup(node, 'cpu', `/${name}/node-1`), `/${name}/node-1`);
    assert.equal(await waitForGroup(generator, 'cpuset', `/${name}/generator`), `/${name}/generator`);
    assert.equal(await groupOf(generator, 'cpu'), `/${name}/generator`);
    const cpus = parseCpuList(await readFile(join(SYSTEM_CGROUP_ROOTS.cpuset, 'cpuset.cpus'), 'utf8'));
    const allowed = (await readFile(`/proc/${String(generator)}/status`, 'utf8')).match(
      /^Cpus_allowed_list:\s*(\S+)/m,
    )?.[1];
    assert.equal(allowed, String(cpus.at(-1)));

    await groups.close();
    assert.equal(await groupOf(node, 'cpu'), '/');
    assert.equal(await groupOf(generator, 'cpuset'), '/');
    for (const root of [SYSTEM_CGROUP_ROOTS.cpu, SYSTEM_CGROUP_ROOTS.cpuset])
      await assert.rejects(stat(join(root, name)), { code: 'ENOENT' });
  },
);
