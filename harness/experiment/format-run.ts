import type { Burst, RecordTally } from '../tally/index.ts';
import { OUTCOME_CLASSES } from '../tally/index.ts';

/** fortio's closing lines, then failure classes, bursts and the verdict. */
export function formatClusterRun(options: {
  tally?: RecordTally | undefined;
  bursts: Burst[];
  loadStartMs: number;
  row: Record<string, string | number>;
  runDir: string;
  notes?: string[];
}): string {
  const { tally, row } = options;
  const lines: string[] = [];
  if (tally && tally.total > 0) {
    for (const [status, count] of [...tally.byStatus].sort((a, b) => a[0] - b[0]))
      lines.push(
        `Code ${String(status).padStart(3)} : ${String(count)} (${((100 * count) / tally.total).toFixed(1)} %)`,
      );
    const seconds = Number(row['duration_s']);
    lines.push(
      `All done ${String(tally.total)} calls (plus 0 warmup) ${tally.latency.avgMs.toFixed(3)} ms avg, ${(tally.total / seconds).toFixed(1)} qps`,
    );
    const totals = tally.timeline.totals();
    const failed = OUTCOME_CLASSES.filter((c) => c !== 'ok' && totals[c] > 0).map(
      (c) => `${c} ${String(totals[c])}`,
    );
    lines.push(
      `503s: ${String(row['http_503'])}; failures by class: ${failed.length ? failed.join(', ') : 'none'}`,
    );
  }
  for (const b of options.bursts) {
    const cause = b.cause
      ? ` after ${b.cause.kind} ${b.cause.object} at ${((b.cause.atMs - options.loadStartMs) / 1000).toFixed(3)} s`
      : '';
    lines.push(
      `burst at ${((b.startMs - options.loadStartMs) / 1000).toFixed(1)} s: ${String(b.failures)} failed over ${String(b.durationMs)} ms${cause}`,
    );
  }
  lines.push(
    `k6 http_reqs ${String(row['k6_http_reqs'])} = tallied ${String(row['requests'])}; dropped iterations ${String(row['dropped_iterations'])}`,
  );
  if (row['k6_cpu_avg_pct'] !== '')
    lines.push(
      `generator: k6 CPU ${String(row['k6_cpu_avg_pct'])} % avg, ${String(row['k6_cpu_max_pct'])} % max (of one core); machine ${String(row['machine_cpu_busy_pct'])} % busy${Number(row['machine_cpu_busy_pct']) >= 95 ? ' - saturated: k6 shares the cores with the system under test' : ''}`,
    );
  lines.push(...(options.notes ?? []));
  lines.push(`run folder: ${options.runDir}`);
  lines.push(`verdict: ${String(row['verdict'])} (${String(row['reason'])})`);
  return `${lines.join('\n')}\n`;
}
