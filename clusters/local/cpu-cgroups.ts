import { constants } from 'node:fs';
import { access, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/**
 * --cpu-isolation: `none`; `nodes`: each node's pods in a cpu cgroup of their own and the load
 * generator in one more, all with equal cpu.shares, as a cluster's nodes each have their own CPUs;
 * `nodes-pinned`: that, plus cpusets: the generator alone on the last CPU, the nodes on the others.
 */
export const CPU_ISOLATION_MODES = ['none', 'nodes', 'nodes-pinned'] as const;
export type CpuIsolation = (typeof CPU_ISOLATION_MODES)[number];

/** The cgroup v1 hierarchies used: the cpu controller's and (nodes-pinned) the cpuset controller's. */
export interface CgroupRoots {
  cpu: string;
  cpuset: string;
}

export const SYSTEM_CGROUP_ROOTS: CgroupRoots = {
  cpu: '/sys/fs/cgroup/cpu',
  cpuset: '/sys/fs/cgroup/cpuset',
};

/** Every group's cpu.shares: the kernel's default, what one nice-0 task or session weighs. */
export const GROUP_CPU_SHARES = 1024;

/** The load generator's group, beside the nodes' ("a node of its own"). */
export const GENERATOR_GROUP = 'generator';

/** How groups are made and removed: mkdir and rmdir on cgroupfs (the kernel adds and drops the files). */
export interface CgroupDirs {
  make(path: string): Promise<void>;
  remove(path: string): Promise<void>;
}

const CGROUPFS_DIRS: CgroupDirs = {
  make: (path) => mkdir(path),
  remove: (path) => rmdir(path),
};

export interface CreateCpuGroupsOptions {
  mode: Exclude<CpuIsolation, 'none'>;
  /** The parent group's name under each root (ours alone: it must not exist yet). */
  name: string;
  /** One group per node, by name; the generator's is added. */
  nodes: readonly string[];
  roots?: CgroupRoots;
  /** Tests: a temporary directory standing for cgroupfs. */
  dirs?: CgroupDirs;
}

export interface CpuGroups {
  /** Every group's name: the nodes' and GENERATOR_GROUP. */
  readonly groups: readonly string[];
  /** The directories made, parents first. */
  readonly paths: readonly string[];
  /**
   * `argv` started inside `group`: a shell writes its own PID into the group's cgroup.procs (each
   * hierarchy's), then execs argv under the same PID, so the program and all it forks start there,
   * as a container runtime places a container's first process before it execs.
   */
  command(group: string, argv: readonly string[]): string[];
  /**
   * Moves any task still in our groups to its hierarchy's root, then removes the groups, children
   * first. Idempotent. Rejects naming what it could not remove.
   */
  close(): Promise<void>;
}

/** `0-3,6` as CPU numbers. */
export function parseCpuList(text: string): number[] {
  return text
    .trim()
    .split(',')
    .filter((part) => part !== '')
    .flatMap((part) => {
      const [from = '', to = from] = part.split('-');
      const [a, b] = [Number(from), Number(to)];
      if (!Number.isInteger(a) || !Number.isInteger(b) || b < a)
        throw new Error(`not a CPU list: ${JSON.stringify(text)}`);
      return Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
}

/** Each group's cpuset.cpus: the generator on the last CPU, every node on the others. */
export function pinnedCpus(cpus: readonly number[], group: string): string {
  const last = cpus.at(-1);
  if (last === undefined || cpus.length < 2)
    throw new Error(`nodes-pinned needs at least 2 CPUs, the cpuset root has ${String(cpus.length)}`);
  return group === GENERATOR_GROUP ? String(last) : cpus.slice(0, -1).join(',');
}

/** Why `mode` cannot run here, or undefined when it can. */
export async function cpuIsolationUnavailable(
  mode: CpuIsolation,
  options: { roots?: CgroupRoots; uid?: number | undefined } = {},
): Promise<string | undefined> {
  if (mode === 'none') return undefined;
  const { roots = SYSTEM_CGROUP_ROOTS, uid = process.getuid?.() } = options;
  if (uid !== 0) return `it needs root to create cgroups, and this runs as uid ${String(uid)}`;
  const needed = mode === 'nodes-pinned' ? [roots.cpu, roots.cpuset] : [roots.cpu];
  for (const root of needed) {
    const file = join(root, root === roots.cpu ? 'cpu.shares' : 'cpuset.cpus');
    const why = await access(file, constants.R_OK)
      .then(() => access(root, constants.W_OK))
      .then(
        () => undefined,
        (err: unknown) => (err as Error).message,
      );
    if (why) return `${root} is not a writable cgroup v1 hierarchy (${why})`;
  }
  if (mode === 'nodes-pinned') {
    const cpus = parseCpuList(await readFile(join(roots.cpuset, 'cpuset.cpus'), 'utf8'));
    if (cpus.length < 2)
      return `nodes-pinned needs 2 CPUs or more, ${roots.cpuset} has ${String(cpus.length)}`;
  }
  return undefined;
}

/** Creates the parent group and one group per node plus the generator's, under each root the mode uses. */
export async function createCpuGroups(options: CreateCpuGroupsOptions): Promise<CpuGroups> {
  const roots = options.roots ?? SYSTEM_CGROUP_ROOTS;
  const dirs = options.dirs ?? CGROUPFS_DIRS;
  const groups = [...options.nodes, GENERATOR_GROUP];
  const made: { root: string; path: string }[] = [];
  const make = async (root: string, path: string, settings: Record<string, string>): Promise<void> => {
    await dirs.make(path);
    made.push({ root, path });
    for (const [file, value] of Object.entries(settings)) await writeFile(join(path, file), value);
  };
  const hierarchies = options.mode === 'nodes-pinned' ? [roots.cpu, roots.cpuset] : [roots.cpu];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= removeGroups(made, dirs));
  try {
    // The parent weighs what its groups would at the root: each as much as one session there.
    const cpuParent = join(roots.cpu, options.name);
    await make(roots.cpu, cpuParent, { 'cpu.shares': String(GROUP_CPU_SHARES * groups.length) });
    for (const g of groups)
      await make(roots.cpu, join(cpuParent, g), { 'cpu.shares': String(GROUP_CPU_SHARES) });
    if (options.mode === 'nodes-pinned') {
      const cpus = parseCpuList(await readFile(join(roots.cpuset, 'cpuset.cpus'), 'utf8'));
      const mems = (await readFile(join(roots.cpuset, 'cpuset.mems'), 'utf8')).trim();
      const cpusetParent = join(roots.cpuset, options.name);
      // A cpuset takes tasks only once cpus and mems are set, and a child's within its parent's.
      await make(roots.cpuset, cpusetParent, { 'cpuset.cpus': cpus.join(','), 'cpuset.mems': mems });
      for (const g of groups)
        await make(roots.cpuset, join(cpusetParent, g), {
          'cpuset.cpus': pinnedCpus(cpus, g),
          'cpuset.mems': mems,
        });
    }
  } catch (err) {
    await close().catch(() => undefined); // the creation error is the one to report
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `could not create the cpu cgroups ${options.name} (--cpu-isolation ${options.mode}) under ${hierarchies.join(' and ')}: ${(err as Error).message}; if it exists, it is left from an earlier run: move its tasks to the root's cgroup.procs and rmdir it`,
      { cause: err },
    );
  }
  return {
    groups,
    paths: made.map((m) => m.path),
    command: (group, argv) => {
      if (!groups.includes(group))
        throw new Error(`no cpu cgroup ${JSON.stringify(group)}; there are ${groups.join(', ')}`);
      const procs = hierarchies.map((root) => join(root, options.name, group, 'cgroup.procs'));
      const writes = procs.map((_, i) => `echo $$ > "$${String(i + 1)}"`).join(' && ');
      const script = `${writes} && shift ${String(procs.length)} && exec "$@"`;
      return ['/bin/sh', '-c', script, 'cpu-cgroup', ...procs, ...argv];
    },
    close,
  };
}

/** The PIDs in a group's cgroup.procs. */
async function readTasks(path: string): Promise<number[]> {
  const text = await readFile(join(path, 'cgroup.procs'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

/**
 * Children before parents: each group's tasks moved to its hierarchy's root (a group with tasks
 * cannot be removed), then the group removed; a task that exits meanwhile is gone already.
 */
async function removeGroups(
  made: readonly { root: string; path: string }[],
  dirs: CgroupDirs,
): Promise<void> {
  const left: string[] = [];
  for (const { root, path } of [...made].reverse()) {
    try {
      for (const pid of await readTasks(path))
        await writeFile(join(root, 'cgroup.procs'), String(pid)).catch((err: unknown) => {
          // ESRCH: it exited between the read and the move; the group empties all the same.
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        });
      await dirs.remove(path);
    } catch (err) {
      left.push(`${path} (${(err as Error).message})`);
    }
  }
  if (left.length > 0)
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `could not remove the cpu cgroups ${left.join(', ')}: move their tasks to the root's cgroup.procs and rmdir them`,
    );
}
