// The cgroup handling against a temporary directory standing for cgroupfs (the real kernel's is
// tested in test/cpu-cgroups.test.ts, as root).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  cpuIsolationUnavailable,
  createCpuGroups,
  GENERATOR_GROUP,
  parseCpuList,
  pinnedCpus,
} from './cpu-cgroups.ts';
import type { CgroupDirs, CgroupRoots } from './cpu-cgroups.ts';

/** As the kernel does: a new group comes with its cgroup.procs; rmdir refuses a group with groups in it. */
const FAKE_DIRS: CgroupDirs = {
  make: async (path) => {
    await mkdir(path);
    await writeFile(join(path, 'cgroup.procs'), '');
  },
  remove: async (path) => {
    const entries = await readdir(path, { withFileTypes: true });
    if (entries.some((e) => e.isDirectory())) throw new Error(`EBUSY: ${path} has child groups`);
    await rm(path, { recursive: true });
  },
};

// Removed after every test's own groups are (a test's after hooks run in the order registered).
const tempDirs: string[] = [];
after(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function fakeRoots(cpus = '0-1'): Promise<CgroupRoots> {
  const dir = await mkdtemp(join(tmpdir(), 'cpu-cgroups-'));
  tempDirs.push(dir);
  const roots = { cpu: join(dir, 'cpu'), cpuset: join(dir, 'cpuset') };
  await mkdir(roots.cpu);
  await mkdir(roots.cpuset);
  await writeFile(join(roots.cpu, 'cpu.shares'), '1024\n');
  await writeFile(join(roots.cpu, 'cgroup.procs'), '');
  await writeFile(join(roots.cpuset, 'cpuset.cpus'), `${cpus}\n`);
  await writeFile(join(roots.cpuset, 'cpuset.mems'), '0\n');
  await writeFile(join(roots.cpuset, 'cgroup.procs'), '');
  return roots;
}

const read = async (path: string): Promise<string> => (await readFile(path, 'utf8')).trim();
const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

test('CPU lists: ranges and single CPUs; the generator takes the last CPU, the nodes the others', () => {
  const table: [string, number[]][] = [
    ['0-1\n', [0, 1]],
    ['0', [0]],
    ['0-2,5,7-8', [0, 1, 2, 5, 7, 8]],
  ];
  for (const [text, cpus] of table) assert.deepEqual(parseCpuList(text), cpus, text);
  assert.throws(() => parseCpuList('3-1'), /not a CPU list/);
  assert.equal(pinnedCpus([0, 1], GENERATOR_GROUP), '1');
  assert.equal(pinnedCpus([0, 1], 'node-1'), '0');
  assert.equal(pinnedCpus([0, 1, 2, 3], 'node-2'), '0,1,2');
  assert.throws(() => pinnedCpus([0], 'node-1'), /at least 2 CPUs/);
});

test('nodes: one group per node and the generator, each 1024 shares, under a parent weighing all three', async (t) => {
  const roots = await fakeRoots();
  const groups = await createCpuGroups({
    mode: 'nodes',
    name: 'ztunnel-harness-7',
    nodes: ['node-1', 'node-2'],
    roots,
    dirs: FAKE_DIRS,
  });
  t.after(() => groups.close());
  const parent = join(roots.cpu, 'ztunnel-harness-7');
  assert.deepEqual(groups.groups, ['node-1', 'node-2', GENERATOR_GROUP]);
  assert.equal(await read(join(parent, 'cpu.shares')), '3072');
  for (const g of groups.groups) assert.equal(await read(join(parent, g, 'cpu.shares')), '1024');
  assert.deepEqual(await readdir(roots.cpuset), ['cgroup.procs', 'cpuset.cpus', 'cpuset.mems']);
});

test('nodes-pinned: the generator alone on the last CPU, the nodes on the others', async (t) => {
  const roots = await fakeRoots('0-3');
  const groups = await createCpuGroups({
    mode: 'nodes-pinned',
    name: 'h',
    nodes: ['node-1', 'node-2'],
    roots,
    dirs: FAKE_DIRS,
  });
  t.after(() => groups.close());
  const at = (g: string, file: string) => read(join(roots.cpuset, 'h', g, file));
  assert.equal(await read(join(roots.cpuset, 'h', 'cpuset.cpus')), '0,1,2,3');
  assert.equal(await at('node-1', 'cpuset.cpus'), '0,1,2');
  assert.equal(await at('node-2', 'cpuset.cpus'), '0,1,2');
  assert.equal(await at(GENERATOR_GROUP, 'cpuset.cpus'), '3');
  assert.equal(await at(GENERATOR_GROUP, 'cpuset.mems'), '0');
});

test('a command started in a group writes its own PID there and keeps it through exec', async (t) => {
  const roots = await fakeRoots();
  const groups = await createCpuGroups({
    mode: 'nodes-pinned',
    name: 'h',
    nodes: ['node-1'],
    roots,
    dirs: FAKE_DIRS,
  });
  t.after(() => groups.close());
  const [file = '', ...args] = groups.command(GENERATOR_GROUP, [
    process.execPath,
    '-e',
    'process.stdout.write(String(process.pid))',
  ]);
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0);
  assert.equal(printed, String(child.pid));
  assert.equal(await read(join(roots.cpu, 'h', GENERATOR_GROUP, 'cgroup.procs')), printed);
  assert.equal(await read(join(roots.cpuset, 'h', GENERATOR_GROUP, 'cgroup.procs')), printed);
  assert.throws(
    () => groups.command('node-9', ['true']),
    /no cpu cgroup "node-9"; there are node-1, generator/,
  );
});

test('close moves the tasks left to the root, removes children before parents, once', async () => {
  const roots = await fakeRoots();
  const groups = await createCpuGroups({
    mode: 'nodes-pinned',
    name: 'h',
    nodes: ['node-1'],
    roots,
    dirs: FAKE_DIRS,
  });
  await writeFile(join(roots.cpu, 'h', 'node-1', 'cgroup.procs'), '4242\n');
  const closing = groups.close();
  assert.equal(groups.close(), closing);
  await closing;
  assert.equal(await read(join(roots.cpu, 'cgroup.procs')), '4242');
  assert.equal(await exists(join(roots.cpu, 'h')), false);
  assert.equal(await exists(join(roots.cpuset, 'h')), false);
});

test('a group that exists already is not ours: refused, and left as it was', async () => {
  const roots = await fakeRoots();
  await FAKE_DIRS.make(join(roots.cpu, 'h'));
  await assert.rejects(
    createCpuGroups({ mode: 'nodes', name: 'h', nodes: ['node-1'], roots, dirs: FAKE_DIRS }),
    /could not create the cpu cgroups h \(--cpu-isolation nodes\) under .*EEXIST.*left from an earlier run/,
  );
  assert.equal(await exists(join(roots.cpu, 'h', 'cgroup.procs')), true);
});

test('why a mode cannot run: none always can; the others need root, the hierarchies, 2 CPUs to pin', async () => {
  const roots = await fakeRoots();
  assert.equal(await cpuIsolationUnavailable('none', { roots, uid: 1000 }), undefined);
  assert.match((await cpuIsolationUnavailable('nodes', { roots, uid: 1000 })) ?? '', /needs root.*uid 1000/);
  assert.equal(await cpuIsolationUnavailable('nodes-pinned', { roots, uid: 0 }), undefined);
  const missing = { ...roots, cpu: join(roots.cpu, 'nothing') };
  assert.match(
    (await cpuIsolationUnavailable('nodes', { roots: missing, uid: 0 })) ?? '',
    /nothing is not a writable cgroup v1 hierarchy \(ENOENT/,
  );
  const one = await fakeRoots('0');
  assert.equal(await cpuIsolationUnavailable('nodes', { roots: one, uid: 0 }), undefined);
  assert.match(
    (await cpuIsolationUnavailable('nodes-pinned', { roots: one, uid: 0 })) ?? '',
    /2 CPUs or more/,
  );
});
