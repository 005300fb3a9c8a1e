import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../../lib/index.ts';
import { podUidOfCgroup } from '../pod-pids.ts';

/**
 * Where a pod's CPU time is counted on this host: kind's nodes are containers, so the pod's cgroup is
 * nested in the node container's, visible from the host. cgroup v1: `cpuacct.usage` (ns) in
 * `.../kubepods/<qos>/pod<uid>`; v2: `cpu.stat`'s usage_usec in `...-pod<uid with _>.slice` (systemd
 * driver) or `.../pod<uid>` (cgroupfs).
 */
export interface PodCpuFile {
  path: string;
  /** Nanoseconds of CPU per unit the file counts. */
  nsPerUnit: number;
}

const ROOTS = ['/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup'];
const MAX_DEPTH = 9;

/** Whether a cgroup folder's name is the pod's (cgroupfs `pod<uid>`, systemd `...-pod<uid_>.slice`). */
export function isPodCgroup(name: string, uid: string): boolean {
  return podUidOfCgroup(name) === uid;
}

async function findDir(dir: string, uid: string, depth: number): Promise<string | undefined> {
  if (depth > MAX_DEPTH) return undefined;
  // A folder that cannot be read (permissions, a cgroup removed meanwhile) holds nothing we can use.
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) if (e.isDirectory() && isPodCgroup(e.name, uid)) return join(dir, e.name);
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const found = await findDir(join(dir, e.name), uid, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The pod's CPU counter on this host, or undefined when its cgroup cannot be seen from here. */
export async function findPodCpuFile(uid: string): Promise<PodCpuFile | undefined> {
  for (const root of ROOTS) {
    const dir = await findDir(root, uid, 0);
    if (!dir) continue;
    const v1 = join(dir, 'cpuacct.usage');
    if (await readFile(v1, 'utf8').catch(() => undefined)) return { path: v1, nsPerUnit: 1 };
    const v2 = join(dir, 'cpu.stat');
    if (await readFile(v2, 'utf8').catch(() => undefined)) return { path: v2, nsPerUnit: 1000 };
  }
  return undefined;
}

/** The counter's value in ns: cpuacct.usage's number, or cpu.stat's usage_usec. */
export function parseCpuCounter(text: string, file: PodCpuFile): number | undefined {
  const raw = file.path.endsWith('cpu.stat') ? /^usage_usec (\d+)$/m.exec(text)?.[1] : text.trim();
  const n = Number(raw);
  return raw === undefined || raw === '' || !Number.isFinite(n) ? undefined : n * file.nsPerUnit;
}

export interface PodCpuSample {
  /** ms since the sampler started. */
  tMs: number;
  /** % of one CPU over the second before (100 = one core busy). */
  cpuPct: number;
}

/** Reads the counter each `intervalMs` until stopped: the pod's CPU per second, as a % of one core. */
export function startPodCpuSampler(options: { file: PodCpuFile; clock: Clock; intervalMs?: number }) {
  const { file, clock } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const samples: PodCpuSample[] = [];
  const stopped = new AbortController();
  // An unreadable counter (the pod's cgroup removed as it ends) reads as none: the series ends.
  const read = async () => parseCpuCounter(await readFile(file.path, 'utf8').catch(() => ''), file);
  const loop = (async () => {
    const startMs = clock.now();
    let last = { ms: startMs, ns: await read() };
    while (!stopped.signal.aborted) {
      // stop() aborts the sleep: the last, partial interval is not a sample.
      const isStopped = await clock.sleep(intervalMs, stopped.signal).then(
        () => false,
        () => true,
      );
      if (isStopped) break;
      const now = { ms: clock.now(), ns: await read() };
      // A counter gone (the pod's cgroup removed as it ends) ends the series.
      if (now.ns === undefined || last.ns === undefined || now.ms <= last.ms) break;
      samples.push({ tMs: now.ms - startMs, cpuPct: ((now.ns - last.ns) / 1e6 / (now.ms - last.ms)) * 100 });
      last = now;
    }
  })();
  return {
    async stop(): Promise<PodCpuSample[]> {
      stopped.abort();
      await loop;
      return samples;
    },
  };
}
