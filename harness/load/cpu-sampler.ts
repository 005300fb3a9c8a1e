import { readFileSync } from 'node:fs';

/** CPU use of one process (the load generator) and of the whole machine over a run. */
export interface CpuUsage {
  /** Mean CPU of the process over the run, in % of one core (200 = two cores busy). */
  processAvgPct: number;
  /** Highest one-interval CPU of the process, in % of one core. */
  processMaxPct: number;
  /** Mean busy share of all cores over the run, in % (100 = every core busy). */
  machineBusyPct: number;
  samples: number;
}

export interface CpuSampler {
  stop(): CpuUsage;
}

/** USER_HZ: the unit of /proc/<pid>/stat utime and stime; 100 on every Linux ABI Node runs on. */
const CLOCK_TICKS_PER_S = 100;

/** utime + stime of `pid` in clock ticks, or undefined once the process is gone. */
function processTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: split after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name, field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of all cores from the first line of /proc/stat. */
function machineTicks(): { busy: number; total: number } | undefined {
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

/**
 * Samples a process's CPU from /proc every `intervalMs` (Linux only; elsewhere it reports zeros
 * with samples 0). Generator health: a load generator pinned at its cores measures itself, not the
 * system under test.
 */
export function startCpuSampler(pid: number, intervalMs = 1000): CpuSampler {
  const startTicks = processTicks(pid);
  const startMachine = machineTicks();
  const startedAt = performance.now();
  let last = { ticks: startTicks, at: startedAt };
  let maxPct = 0;
  let samples = 0;
  let lastMachine = startMachine;
  const sample = (): void => {
    const ticks = processTicks(pid);
    const now = performance.now();
    const m = machineTicks();
    if (ticks === undefined || last.ticks === undefined) return;
    if (m) lastMachine = m;
    const pct = ((ticks - last.ticks) / CLOCK_TICKS_PER_S / ((now - last.at) / 1000)) * 100;
    maxPct = Math.max(maxPct, pct);
    samples += 1;
    last = { ticks, at: now };
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop(): CpuUsage {
      clearInterval(timer);
      sample();
      // Up to the last sample that saw the process: it has usually exited by the time stop() runs.
      const elapsedS = (last.at - startedAt) / 1000;
      const used = startTicks !== undefined && last.ticks !== undefined ? last.ticks - startTicks : 0;
      const machine =
        startMachine && lastMachine && lastMachine.total > startMachine.total
          ? ((lastMachine.busy - startMachine.busy) / (lastMachine.total - startMachine.total)) * 100
          : 0;
      return {
        processAvgPct: elapsedS > 0 ? (used / CLOCK_TICKS_PER_S / elapsedS) * 100 : 0,
        processMaxPct: maxPct,
        machineBusyPct: machine,
        samples,
      };
    },
  };
}
