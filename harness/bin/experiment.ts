// `npm run experiment`: one experiment run. Today the only scenario is `load-smoke` (k6 against a
// local target, no cluster); the cluster scenarios and their flags (--grace, --restart-at, ...) come
// with the local cluster and the experiment runner.
import { Command, Option } from 'commander';
import { createSystemClock } from '../../lib/index.ts';
import { choiceParser, numberParser, pathParser } from '../cli/parse-values.ts';
import { runMain } from '../cli/run-main.ts';
import { formatFortioSummary } from '../load/index.ts';
import { DEFAULT_RESULTS_DIR } from '../paths.ts';
import { runLoadSmoke } from '../scenarios/load-smoke.ts';

const SCENARIOS = ['load-smoke'] as const;

interface ExperimentFlags {
  scenario: (typeof SCENARIOS)[number];
  qps: number;
  connections: number;
  duration: number;
  timeout: number;
  path: string;
  resultsDir: string;
}

function buildProgram(): Command {
  return new Command('experiment')
    .description('Drive fortio-like k6 load and report what was lost.')
    .addOption(
      new Option('--scenario <name>', `one of: ${SCENARIOS.join(', ')}`)
        .default('load-smoke')
        .argParser(choiceParser('--scenario', SCENARIOS)),
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
      10,
    )
    .option('--duration <s>', 'seconds of load', numberParser('--duration', { min: 1, unit: 'seconds' }), 10)
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
    .option('--results-dir <dir>', 'where run folders go', DEFAULT_RESULTS_DIR)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
}

function isOk(status: number): boolean {
  return (status >= 200 && status < 300) || status === 418;
}

runMain(async (signal) => {
  const flags = buildProgram().parse(process.argv).opts<ExperimentFlags>();
  const write = (t: string): void => {
    process.stderr.write(t);
  };
  const run = await runLoadSmoke({
    qps: flags.qps,
    connections: flags.connections,
    durationS: flags.duration,
    timeoutS: flags.timeout,
    path: flags.path,
    resultsDir: flags.resultsDir,
    clock: createSystemClock(),
    signal,
    write,
  });
  const { counts, summary, k6 } = run.result;
  const failed = [...counts.byStatus].filter(([status]) => !isOk(status)).reduce((n, [, c]) => n + c, 0);
  process.stdout.write(
    `${formatFortioSummary(counts)}\n` +
      `k6 v${k6.version} (${k6.path}); http_reqs ${String(summary.httpReqs)} = records ${String(counts.total)}; ` +
      `dropped iterations ${String(summary.droppedIterations)}; p99 ${summary.durationMs.p99.toFixed(2)} ms\n` +
      `run folder: ${run.runDir}\n` +
      `verdict: ${failed === 0 ? 'pass' : 'fail'} (${String(failed)} requests not OK)\n`,
  );
  return failed === 0 ? 0 : 1;
});
