import { CLOCK_TICKS_PER_S, readMachineTicks, readProcEntry } from '../observe/proc-stat.ts';

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

/**
 * Samples a process's CPU from /proc every `intervalMs` (Linux only; elsewhere it reports zeros
 * with samples 0). Generator health: a load generator pinned at its cores measures itself, not the
 * system under test.
 */
export function startCpuSampler(pid: number, intervalMs = 1000): CpuSampler {
  const startTicks = readProcEntry(pid)?.ticks;
  const startMachine = readMachineTicks();
  const startedAt = performance.now();
  let last = { ticks: startTicks, at: startedAt };
  let maxPct = 0;
  let samples = 0;
  let lastMachine = startMachine;
  const sample = (): void => {
    const ticks = readProcEntry(pid)?.ticks;
    const now = performance.now();
    const m = readMachineTicks();
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
