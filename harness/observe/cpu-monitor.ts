import type { Clock } from '../../lib/index.ts';
import { CLOCK_TICKS_PER_S, processTree, readProcTable, readRunQueueWaitNs } from './proc-stat.ts';

/**
 * Where the CPU goes during a run: every component (a pod's containers, k6, the harness itself)
 * sampled from /proc once a second. A component is a set of root PIDs, counted with their
 * descendants (the gateway's worker processes) or alone (the harness, whose children are the pods).
 * Users need this to see where the queue forms: it decides how many requests a restart catches in
 * flight.
 */
export interface CpuComponent {
  /** Who: `harness`, `k6`, or a pod's `namespace/name`. */
  name: string;
  /** What it is, for the summary: harness, k6, gateway, ztunnel, httpbin, ... */
  group: string;
  roots: readonly number[];
  /** Count the roots' descendants too. */
  tree: boolean;
}

export interface CpuSample {
  /** End of the interval, on the run's clock. */
  atMs: number;
  component: string;
  group: string;
  /** % of one core over the interval (200 = two cores busy). */
  pct: number;
  /**
   * Time its threads were runnable but not running, % of the interval summed over threads (50 = half
   * a second of waiting for a CPU in one second): what a saturated machine adds to its latency.
   */
  waitPct: number;
}

export interface CpuGroupFigures {
  /** Mean over the samples of the group's summed CPU, % of one core. */
  avgPct: number;
  /** Highest one-interval sum. */
  maxPct: number;
  /** Mean over the samples of the group's summed run-queue wait, % of the interval. */
  waitAvgPct: number;
  samples: number;
}

export interface CpuReport {
  intervalMs: number;
  samples: CpuSample[];
  groups: Map<string, CpuGroupFigures>;
}

export interface CpuMonitor {
  stop(): CpuReport;
}

/**
 * Starts sampling now. `components` is asked at every tick (pods come and go during a rollout).
 * Per-PID deltas: a process that exits between two samples loses only its last partial interval,
 * and one that appears is counted from its first sample.
 */
export function startCpuMonitor(options: {
  clock: Clock;
  components: () => readonly CpuComponent[];
  intervalMs?: number;
}): CpuMonitor {
  const intervalMs = options.intervalMs ?? 1000;
  const { clock } = options;
  const samples: CpuSample[] = [];
  let last = { atMs: clock.now(), ticks: new Map<number, number>(), waits: new Map<number, number>() };
  const sample = (): void => {
    const table = readProcTable();
    const atMs = clock.now();
    const seconds = (atMs - last.atMs) / 1000;
    const ticks = new Map<number, number>();
    for (const [pid, entry] of table) ticks.set(pid, entry.ticks);
    const waits = new Map<number, number>();
    for (const component of options.components()) {
      const pids = component.tree
        ? processTree(table, component.roots)
        : component.roots.filter((pid) => table.has(pid));
      let used = 0;
      let waitedNs = 0;
      for (const pid of pids) {
        used += (ticks.get(pid) ?? 0) - (last.ticks.get(pid) ?? 0);
        const wait = readRunQueueWaitNs(pid);
        if (wait === undefined) continue;
        waits.set(pid, wait);
        // A process first seen now is counted from this reading on, as its CPU is.
        const before = last.waits.get(pid);
        if (before !== undefined) waitedNs += Math.max(0, wait - before);
      }
      if (seconds > 0) {
        const pct = (used / CLOCK_TICKS_PER_S / seconds) * 100;
        const waitPct = (waitedNs / 1e9 / seconds) * 100;
        samples.push({
          atMs,
          component: component.name,
          group: component.group,
          pct: Math.max(0, pct),
          waitPct,
        });
      }
    }
    last = { atMs, ticks, waits };
  };
  sample(); // the baseline
  samples.length = 0;
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  let report: CpuReport | undefined;
  return {
    stop() {
      if (report) return report;
      clearInterval(timer);
      // A last interval much shorter than the others would turn one 10 ms clock tick into a
      // spurious peak: it is sampled only when it is at least half an interval long.
      if (clock.now() - last.atMs >= intervalMs / 2) sample();
      report = { intervalMs, samples, groups: summarizeGroups(samples) };
      return report;
    },
  };
}

/** Per group: the per-tick sums of its components, then their mean and max. */
export function summarizeGroups(samples: readonly CpuSample[]): Map<string, CpuGroupFigures> {
  const byGroupTick = new Map<string, Map<number, { pct: number; waitPct: number }>>();
  for (const s of samples) {
    const ticks = byGroupTick.get(s.group) ?? new Map<number, { pct: number; waitPct: number }>();
    const at = ticks.get(s.atMs) ?? { pct: 0, waitPct: 0 };
    ticks.set(s.atMs, { pct: at.pct + s.pct, waitPct: at.waitPct + s.waitPct });
    byGroupTick.set(s.group, ticks);
  }
  const groups = new Map<string, CpuGroupFigures>();
  const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
  for (const [group, ticks] of byGroupTick) {
    const sums = [...ticks.values()];
    groups.set(group, {
      avgPct: mean(sums.map((t) => t.pct)),
      maxPct: Math.max(...sums.map((t) => t.pct)),
      waitAvgPct: mean(sums.map((t) => t.waitPct)),
      samples: sums.length,
    });
  }
  return groups;
}

/** What a pod is, by its owner (`deployment/istio-ingressgateway` -> gateway). */
export function groupOfOwner(owner: string): string {
  const name = owner.split('/').pop() ?? owner;
  if (name === 'istio-ingressgateway') return 'gateway';
  return name;
}
