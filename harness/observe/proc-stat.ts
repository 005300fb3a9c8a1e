import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from /proc (Linux). utime and stime are in USER_HZ clock ticks, 100 a second on every
 * Linux ABI Node runs on.
 */
export const CLOCK_TICKS_PER_S = 100;

export interface ProcEntry {
  ppid: number;
  /** utime + stime in clock ticks. */
  ticks: number;
}

/** One process's entry, or undefined once it is gone (or on a system without /proc). */
export function readProcEntry(pid: number): ProcEntry | undefined {
  try {
    return parseStat(readFileSync(`/proc/${String(pid)}/stat`, 'utf8'));
  } catch {
    // Gone between listing and reading, or no /proc: nothing to count.
    return undefined;
  }
}

/** Every process's entry by PID: one pass over /proc, for process trees. */
export function readProcTable(): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return table; // no /proc (not Linux): every component reads as 0 with no samples
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const entry = readProcEntry(pid);
    if (entry) table.set(pid, entry);
  }
  return table;
}

function parseStat(stat: string): ProcEntry {
  // The command name (field 2) may hold spaces and parentheses: split after its closing ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name, field 3 (state) is index 0: ppid (4) is 1, utime (14) and stime (15) are 11, 12.
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** Busy and total jiffies of all cores from the first line of /proc/stat. */
export function readMachineTicks(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** `roots` and all their descendants in `table`. */
export function processTree(table: ReadonlyMap<number, ProcEntry>, roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, entry] of table) {
    const list = children.get(entry.ppid);
    if (list) list.push(pid);
    else children.set(entry.ppid, [pid]);
  }
  const out: number[] = [];
  const stack = roots.filter((pid) => table.has(pid));
  const seen = new Set<number>();
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Nanoseconds the process's threads have spent runnable but waiting for a CPU, summed over its
 * threads: the second field of /proc/<pid>/task/<tid>/schedstat (Documentation/scheduler/sched-stats
 * in the kernel: "time spent waiting on a runqueue"). Undefined once the process is gone; a thread
 * that ends between two readings takes its share with it (the sum can then fall: callers clamp).
 */
export function readRunQueueWaitNs(pid: number): number | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${String(pid)}/task`);
  } catch {
    return undefined; // gone, or no /proc
  }
  let waitNs = 0;
  for (const tid of tids) {
    try {
      waitNs += Number(readFileSync(`/proc/${String(pid)}/task/${tid}/schedstat`, 'utf8').split(' ')[1] ?? 0);
    } catch {
      // The thread ended between the listing and the read: its wait is no longer counted anywhere.
    }
  }
  return waitNs;
}
