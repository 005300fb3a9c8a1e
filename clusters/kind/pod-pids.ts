// Each kind pod's processes as this host sees them: kind's nodes are containers on this kernel, so a
// pod's cgroup (nested in its node container's) is visible here, and its `cgroup.procs` list host
// PIDs. With them the harness's CPU monitor (harness/observe/cpu-monitor.ts) reads each pod's CPU
// and run-queue wait from /proc as it does the local backend's pods: the CPU-wait share at a drain
// deadline is measured on kind as there.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../lib/index.ts';

/** Where the cgroup hierarchies are mounted (v1: the cpu controller's; v2: the one tree). */
export const CGROUP_ROOTS = ['/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup'];
const MAX_DEPTH = 9;
/** A pod seen before its cgroup exists is looked for again at most this often (a full walk). */
const RESCAN_MS = 2000;

/** The pod uid a cgroup folder is for: cgroupfs `pod<uid>`, systemd `...-pod<uid with _>.slice`. */
export function podUidOfCgroup(name: string): string | undefined {
  const uid = /^pod([0-9a-f-]{36})$/.exec(name)?.[1] ?? /-pod([0-9a-f_]{36})\.slice$/.exec(name)?.[1];
  return uid?.replaceAll('_', '-');
}

const dirsIn = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch {
    return []; // a cgroup removed meanwhile, or one this process cannot read
  }
};

/** Every pod cgroup under `root`, by uid (pods' own folders are not walked into). */
function scan(root: string, into: Map<string, string>, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  for (const dir of dirsIn(root)) {
    const uid = podUidOfCgroup(dir.slice(dir.lastIndexOf('/') + 1));
    if (uid) into.set(uid, dir);
    else scan(dir, into, depth + 1);
  }
}

/** The PIDs in a cgroup and its children (the pod's sandbox and containers), or undefined if gone. */
function procsOf(dir: string, depth = 0): number[] | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, 'cgroup.procs'), 'utf8');
  } catch {
    return undefined;
  }
  const pids = text
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  if (depth < 3) for (const child of dirsIn(dir)) pids.push(...(procsOf(child, depth + 1) ?? []));
  return pids;
}

export interface PodPids {
  /** The pod's processes now (host PIDs), or undefined while its cgroup is not seen from here. */
  of(uid: string): number[] | undefined;
}

/** Reads are synchronous (cpu-monitor asks once a second, for a few dozen pods: a few files each). */
export function createPodPids(options: { clock: Clock; roots?: readonly string[] }): PodPids {
  const roots = options.roots ?? CGROUP_ROOTS;
  const dirs = new Map<string, string>();
  let scannedAtMs = -Infinity;
  const rescan = (): void => {
    scannedAtMs = options.clock.now();
    // The first root that has any pod: v1's cpu hierarchy before the v2 tree it is mounted in.
    for (const root of roots) {
      const found = new Map<string, string>();
      scan(root, found);
      if (found.size === 0) continue;
      for (const [uid, dir] of found) dirs.set(uid, dir);
      return;
    }
  };
  return {
    of(uid) {
      if (!uid) return undefined;
      if (!dirs.has(uid) && options.clock.now() - scannedAtMs >= RESCAN_MS) rescan();
      const dir = dirs.get(uid);
      if (!dir) return undefined;
      const pids = procsOf(dir);
      if (!pids) dirs.delete(uid);
      return pids;
    },
  };
}
