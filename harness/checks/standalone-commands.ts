// The two checks of the load path that need no cluster: load-smoke (k6 against a local target) and calibrate (the
// classifier against a fault-injecting httpbin), as `npm run experiment` prints them.
import type { Clock } from '../../lib/index.ts';
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { formatFortioSummary } from '../load/index.ts';
import { isFortioOk } from '../tally/index.ts';
import { runCalibration } from './calibrate.ts';
import { runLoadSmoke } from './load-smoke.ts';

export async function runLoadSmokeCommand(
  flags: ExperimentFlags,
  clock: Clock,
  signal: AbortSignal,
  write: (t: string) => void,
): Promise<number> {
  const run = await runLoadSmoke({
    qps: flags.qps,
    connections: flags.connections,
    durationS: flags.duration,
    timeoutS: flags.timeout,
    path: flags.path,
    resultsDir: flags.resultsDir,
    clock,
    signal,
    write,
  });
  const { counts, summary, k6 } = run.result;
  const failed = [...counts.byStatus]
    .filter(([status]) => !isFortioOk(status))
    .reduce((n, [, c]) => n + c, 0);
  process.stdout.write(
    `${formatFortioSummary(counts)}\nk6 v${k6.version} (${k6.path}); http_reqs ${String(summary.httpReqs)} = records ${String(counts.total)}; ` +
      `dropped iterations ${String(summary.droppedIterations)}; p99 ${summary.durationMs.p99.toFixed(2)} ms\nrun folder: ${run.runDir}\n` +
      `verdict: ${failed === 0 ? 'pass' : 'fail'} (${String(failed)} requests not OK)\n`,
  );
  return failed === 0 ? 0 : 1;
}

export async function runCalibrateCommand(
  flags: ExperimentFlags,
  clock: Clock,
  signal: AbortSignal,
  write: (t: string) => void,
): Promise<number> {
  const run = await runCalibration({
    qps: flags.qps,
    connections: flags.connections,
    durationS: flags.duration,
    resultsDir: flags.resultsDir,
    clock,
    signal,
    write,
  });
  const table = run.rows
    .filter((r) => r.expected > 0 || r.got > 0)
    .map(
      (r) =>
        `  ${r.outcome.padEnd(14)} expected ${String(r.expected).padStart(7)}  got ${String(r.got).padStart(7)}${r.expected === r.got ? '' : '  <- differs'}`,
    );
  process.stdout.write(
    `calibration: 6 targets in turn (418, 503, refused, reset, EOF, timeout), ${String(run.total)} requests (k6 http_reqs ${String(run.k6HttpReqs)})\n${table.join('\n')}\n` +
      `run folder: ${run.runDir}\nverdict: ${run.isExact ? 'pass (exact)' : 'fail (the tally does not match)'}\n`,
  );
  return run.isExact ? 0 : 1;
}
