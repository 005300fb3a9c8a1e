// What the generator and the gateway counted, what the generator cost, and each component's CPU.
import type { ColumnNote } from './column.ts';
import { section } from './column.ts';
import type { RowInput } from './row-input.ts';

/**
 * Components whose CPU (mean and max over the load, % of one core, summed over their pods) is a
 * column of every row; the load generator's is in the generator columns. Per pod and per second: cpu.csv.
 */
export const CPU_COLUMN_GROUPS = ['harness', 'gateway', 'ztunnel', 'httpbin'] as const;

export const GENERATOR_COUNT_SECTION = section(
  {
    generator_requests: "the load generator's own request count (checked against the tally)",
    gateway_log_requests: "requests in the gateway's access log (local backend)",
    gateway_log_failures: 'failures the gateway answered or cut, from its access log',
    gateway_log_warmup_failures:
      "the gateway's failures during the generator's warmup calls (before its first counted request), not in `requests`",
    dropped_iterations: 'iterations the generator started late or not at all (generator health)',
    generator_retried:
      "fortio's retried calls by why the first attempt failed (`timeout:19`), empty when none",
    generator_cpu_avg_pct:
      "the load generator's CPU, mean % of one core (kind --load-from cluster: the pod runner's on this host; fortio's own is in fortio/pod-cpu.csv)",
    generator_cpu_max_pct:
      "the load generator's CPU, peak % of one core (kind --load-from cluster: the pod runner's; fortio's in fortio/pod-cpu.csv)",
    machine_cpu_busy_pct: 'how busy the whole machine was during the load, %',
  },
  ({ facts }: RowInput) => ({
    generator_requests: facts.generatorRequests,
    gateway_log_requests: facts.gatewayLog?.requests ?? '',
    gateway_log_failures: facts.gatewayLog?.failures ?? '',
    gateway_log_warmup_failures: facts.gatewayLog?.warmupFailures ?? '',
    dropped_iterations: facts.droppedIterations,
    generator_retried: facts.generatorRetried ?? '',
    generator_cpu_avg_pct: facts.generatorCpu ? facts.generatorCpu.processAvgPct.toFixed(1) : '',
    generator_cpu_max_pct: facts.generatorCpu ? facts.generatorCpu.processMaxPct.toFixed(1) : '',
    machine_cpu_busy_pct: facts.generatorCpu ? facts.generatorCpu.machineBusyPct.toFixed(1) : '',
  }),
);

const CPU_WHO: Readonly<Record<(typeof CPU_COLUMN_GROUPS)[number], [string, string]>> = {
  harness: ["the harness process's CPU", "the harness's threads'"],
  gateway: ["the gateway's CPU (all its processes)", "the gateway's (pilot-agent and Envoy)"],
  ztunnel: ['the ztunnels', "the ztunnels'"],
  httpbin: ['the httpbin pods', "httpbin's"],
};

const cpuNotes = (): Record<string, ColumnNote> =>
  Object.fromEntries(
    CPU_COLUMN_GROUPS.flatMap((group) => {
      const [who, threads] = CPU_WHO[group];
      return [
        [`${group}_cpu_avg_pct`, `${who}, mean % of one core over the load`],
        [`${group}_cpu_max_pct`, `${who}, max % of one core in a second`],
        [
          `${group}_cpu_wait_avg_pct`,
          `${threads} run-queue wait (runnable, no CPU; schedstat), mean % of the time, summed over threads`,
        ],
      ];
    }),
  );

export const CPU_SECTION = section(cpuNotes(), ({ facts }: RowInput) => {
  const row: Record<string, string> = {};
  for (const group of CPU_COLUMN_GROUPS) {
    const figures = facts.componentCpu?.get(group);
    row[`${group}_cpu_avg_pct`] = figures ? figures.avgPct.toFixed(1) : '';
    row[`${group}_cpu_max_pct`] = figures ? figures.maxPct.toFixed(1) : '';
    row[`${group}_cpu_wait_avg_pct`] = figures ? figures.waitAvgPct.toFixed(1) : '';
  }
  return row;
});
