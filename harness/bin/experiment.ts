// `npm run experiment`: one experiment run. Cluster scenarios (ztunnel-upgrade, the default, and
// workload-rollout) bring up the local cluster, drive k6 through the gateway, restart at
// --restart-at and tally against the lifecycle events; load-smoke is k6 against a local target.
import { Command, Option } from 'commander';
import { TIMING_MODEL_KEYS } from '../../clusters/local/index.ts';
import { badInput, createSystemClock } from '../../lib/index.ts';
import { choiceParser, numberParser, pathParser, timingParser } from '../cli/parse-values.ts';
import { runMain } from '../cli/run-main.ts';
import { formatRepeats } from '../experiment/format-repeats.ts';
import { formatClusterRun } from '../experiment/format-run.ts';
import { runClusterExperiment } from '../experiment/run-cluster-experiment.ts';
import type { ExperimentParams } from '../experiment/experiment-params.ts';
import { formatFortioSummary } from '../load/index.ts';
import { DEFAULT_RESULTS_DIR } from '../paths.ts';
import { runCalibration } from '../scenarios/calibrate.ts';
import { runLoadSmoke } from '../scenarios/load-smoke.ts';
import { isFortioOk } from '../tally/index.ts';
import { workloadRollout } from '../scenarios/workload-rollout.ts';
import { ztunnelUpgrade } from '../scenarios/ztunnel-upgrade.ts';

const CLUSTER_SCENARIOS = { 'ztunnel-upgrade': ztunnelUpgrade, 'workload-rollout': workloadRollout } as const;
const SCENARIOS = ['ztunnel-upgrade', 'workload-rollout', 'calibrate', 'load-smoke'] as const;

interface ExperimentFlags {
  scenario: (typeof SCENARIOS)[number];
  backend: 'local';
  grace: number;
  qps: number;
  connections: number;
  duration: number;
  timeout: number;
  path: string;
  restartAt?: string;
  replicas: number;
  mesh: 'ambient' | 'off';
  maxFailed?: number;
  repeat: number;
  timing?: Record<string, number>;
  resultsDir: string;
}

function buildProgram(): Command {
  return new Command('experiment')
    .description(
      'Drive fortio-like k6 load through the local cluster, restart something mid-run, and report what was lost.',
    )
    .addOption(
      new Option('--scenario <name>', `one of: ${SCENARIOS.join(', ')}`)
        .default('ztunnel-upgrade')
        .argParser(choiceParser('--scenario', SCENARIOS)),
    )
    .addOption(
      new Option('--backend <name>', 'local (kind arrives with its issue)')
        .default('local')
        .argParser(choiceParser('--backend', ['local'] as const)),
    )
    .option(
      '--grace <s>',
      "ztunnel's terminationGracePeriodSeconds and TERMINATION_GRACE_PERIOD_SECONDS",
      numberParser('--grace', { min: 0, integer: true, unit: 'seconds' }),
      30,
    )
    .option(
      '--qps <n>',
      'requests per second, 0 = as fast as the connections go',
      numberParser('--qps', { min: 0 }),
      0,
    )
    .option(
      '-c, --connections <n>',
      'connections (k6 VUs)',
      numberParser('--connections', { min: 1, integer: true }),
      100,
    )
    .option('--duration <s>', 'seconds of load', numberParser('--duration', { min: 1, unit: 'seconds' }), 60)
    .option(
      '--timeout <s>',
      'per-request timeout, seconds',
      numberParser('--timeout', { min: 0.001, unit: 'seconds' }),
      10,
    )
    .option(
      '--path <path>',
      'request path (418 counts as OK, like the ASM runs)',
      pathParser('--path'),
      '/status/418',
    )
    .option(
      '--restart-at <s>',
      'seconds into the load to restart; "none" for load only (default: a third of --duration)',
    )
    .option(
      '--replicas <n>',
      'httpbin replicas (1-4 as in design.md)',
      numberParser('--replicas', { min: 1, integer: true }),
      3,
    )
    .addOption(
      new Option('--mesh <mode>', 'ambient | off')
        .default('ambient')
        .argParser(choiceParser('--mesh', ['ambient', 'off'] as const)),
    )
    .option(
      '--max-failed <n>',
      "failed requests a passing run may have (default: the scenario's)",
      numberParser('--max-failed', { min: 0, integer: true }),
    )
    .option(
      '--repeat <n>',
      'runs in a row, each on a fresh cluster; prints min/median/max',
      numberParser('--repeat', { min: 1, integer: true }),
      1,
    )
    .option(
      '--timing <name=ms>',
      `timing-model override, repeatable (${TIMING_MODEL_KEYS.join(', ')})`,
      timingParser('--timing', TIMING_MODEL_KEYS),
    )
    .option('--results-dir <dir>', 'where run folders and runs.csv go', DEFAULT_RESULTS_DIR)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
}

function parseRestartAt(raw: string | undefined, durationS: number): number | undefined {
  if (raw === 'none') return undefined;
  if (raw === undefined) return durationS / 3;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value >= durationS)
    throw badInput('--restart-at', `a number of seconds in [0, --duration) or "none"`, raw);
  return value;
}

runMain(async (signal) => {
  const flags = buildProgram().parse(process.argv).opts<ExperimentFlags>();
  const write = (t: string): void => {
    process.stderr.write(t);
  };
  const clock = createSystemClock();
  if (flags.scenario === 'load-smoke') {
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
  if (flags.scenario === 'calibrate') {
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
  const scenario = CLUSTER_SCENARIOS[flags.scenario];
  const params: ExperimentParams = {
    scenario: scenario.name,
    backend: flags.backend,
    mesh: flags.mesh,
    graceS: flags.grace,
    qps: flags.qps,
    connections: flags.connections,
    durationS: flags.duration,
    timeoutS: flags.timeout,
    path: flags.path,
    restartAtS: parseRestartAt(flags.restartAt, flags.duration),
    replicas: flags.replicas,
    maxFailed: flags.maxFailed ?? scenario.defaultMaxFailed,
    timing: flags.timing ?? {},
  };
  write(`${scenario.name}: ${scenario.summary}\n`);
  const rows: Record<string, string | number>[] = [];
  for (let i = 1; i <= flags.repeat && !signal.aborted; i++) {
    if (flags.repeat > 1) write(`repetition ${String(i)} of ${String(flags.repeat)}\n`);
    const run = await runClusterExperiment({
      scenario,
      params,
      resultsDir: flags.resultsDir,
      clock,
      signal,
      write,
    });
    process.stdout.write(
      formatClusterRun({
        tally: run.tally,
        bursts: run.bursts,
        loadStartMs: run.loadStartMs,
        row: run.row,
        runDir: run.runDir,
      }),
    );
    rows.push(run.row);
  }
  if (rows.length > 1) process.stdout.write(formatRepeats(rows));
  if (signal.aborted) return 130;
  return rows.every((r) => r['verdict'] === 'pass') ? 0 : 1;
});
