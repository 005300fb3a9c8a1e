// The two checks of the load path that need no cluster: load-smoke (the generator against a local target) and calibrate (the
// classifier against a fault-injecting httpbin), as `npm run experiment` prints them.
import type { Clock } from '../../../lib/index.ts';
import type { ExperimentFlags } from '../../options/experiment-options.ts';
import { formatFortioSummary } from '../../load/index.ts';
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
    generator: flags.generator,
  });
  const { counts, summary, generator, ownSummary } = run.result;
  const { failed } = run;
  process.stdout.write(
    `${ownSummary ?? formatFortioSummary(counts)}\n${generator.kind} v${generator.version} (${generator.path}); counted ${String(summary.httpReqs)} = records ${String(counts.total)}; ` +
      `dropped iterations ${String(summary.droppedIterations)}\nrun folder: ${run.runDir}\n` +
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
    generator: flags.generator,
  });
  const table = run.rows
    .filter((r) => r.expected > 0 || r.got > 0)
    .map(
      (r) =>
        `  ${r.outcome.padEnd(14)} expected ${String(r.expected).padStart(7)}  got ${String(r.got).padStart(7)}${r.expected === r.got ? '' : '  <- differs'}`,
    );
  process.stdout.write(
    `calibration: 6 targets (418, 503, refused, reset, EOF, timeout), ${String(run.total)} requests (${run.generator.kind} counted ${String(run.generatorRequests)})\n${table.join('\n')}\n` +
      `run folder: ${run.runDir}\nverdict: ${run.isExact ? 'pass (exact)' : 'fail (the tally does not match)'}\n`,
  );
  return run.isExact ? 0 : 1;
}
