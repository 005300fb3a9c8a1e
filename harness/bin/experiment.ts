// `npm run experiment`: one experiment (or a suite). Cluster scenarios bring up the local cluster,
// drive k6, apply the fault at --restart-at and tally against the lifecycle events; calibrate
// proves the classifier; load-smoke is k6 against a local target; --suite seeds runs every source
// experiment with its arms and writes the comparison table.
import { createSystemClock, EXIT } from '../../lib/index.ts';
import { exitCodeOfRows } from '../experiment/exit-code.ts';
import type { Clock } from '../../lib/index.ts';
import { parseExperimentArgs } from '../cli/experiment-args.ts';
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { isInsideOwnNetns, readTcpMigrateReq, rerunInOwnNetns } from '../cli/own-netns.ts';
import { runMain } from '../cli/run-main.ts';
import type { ExperimentParams } from '../experiment/experiment-params.ts';
import { formatRepeats } from '../experiment/format-repeats.ts';
import { formatClusterRun } from '../experiment/format-run.ts';
import { runClusterExperiment } from '../experiment/run-cluster-experiment.ts';
import { CLUSTER_SCENARIOS } from '../scenarios/index.ts';
import { runCalibrateCommand, runLoadSmokeCommand } from '../checks/standalone-commands.ts';
import { runSuite } from '../suite/run-suite.ts';

async function runClusterScenario(
  params: ExperimentParams,
  flags: ExperimentFlags,
  clock: Clock,
  signal: AbortSignal,
  write: (t: string) => void,
): Promise<number> {
  const scenario = CLUSTER_SCENARIOS[flags.scenario];
  if (!scenario) throw new Error(`no cluster scenario ${flags.scenario}`);
  if (params.arms.tcpMigrateReq === 1 && !isInsideOwnNetns()) return rerunInOwnNetns(signal);
  if (params.arms.tcpMigrateReq === 1)
    write(`network namespace of its own: net.ipv4.tcp_migrate_req = ${String(readTcpMigrateReq())}\n`);
  write(`${scenario.name}: ${scenario.summary}\n`);
  const repeat = flags.repeat ?? 1;
  const rows: Record<string, string | number>[] = [];
  for (let i = 1; i <= repeat && !signal.aborted; i++) {
    if (repeat > 1) write(`repetition ${String(i)} of ${String(repeat)}\n`);
    const run = await runClusterExperiment({
      scenario,
      params,
      resultsDir: flags.resultsDir,
      clock,
      signal,
      write,
      backendSettings: { 'kind-ingress-port': flags.kindIngressPort, 'keep-cluster': flags.keepCluster },
    });
    const fortioSummary = run.load?.ownSummary;
    process.stdout.write(formatClusterRun({ ...run, ...(fortioSummary ? { fortioSummary } : {}) }));
    rows.push(run.row);
  }
  if (rows.length > 1) process.stdout.write(formatRepeats(rows));
  if (signal.aborted) return EXIT.interrupted;
  return exitCodeOfRows(rows);
}

runMain(async (signal) => {
  // Every check of the input, before anything starts (exit 2 on bad input).
  const { flags, params } = await parseExperimentArgs(process.argv.slice(2));
  const write = (t: string): void => {
    process.stderr.write(t);
  };
  const clock = createSystemClock();
  if (flags.suite) return runSuite({ suite: flags.suite, flags, clock, signal, write });
  if (flags.scenario === 'drain-strategies')
    return runSuite({ suite: 'seeds', only: 'E5', flags, clock, signal, write });
  if (flags.scenario === 'load-smoke') return runLoadSmokeCommand(flags, clock, signal, write);
  if (flags.scenario === 'calibrate') return runCalibrateCommand(flags, clock, signal, write);
  if (!params) throw new Error(`no cluster scenario ${flags.scenario}`);
  return runClusterScenario(params, flags, clock, signal, write);
});
