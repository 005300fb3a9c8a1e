// `npm run experiment -- [command] [options]` (harness/cli/commands.ts): run (the default) brings up
// the cluster, drives the load, applies the fault at --restart-at and tallies against the lifecycle
// events; suite seeds runs every source experiment with its arms and writes the comparison table;
// calibrate proves the classifier; load-smoke is the generator against a local target.
import { createSystemClock, EXIT } from '../../lib/index.ts';
import { exitCodeOfRows } from '../run/exit-code.ts';
import type { Clock } from '../../lib/index.ts';
import { parseExperimentArgs } from '../cli/experiment-args.ts';
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { isInsideOwnNetns, readTcpMigrateReq, rerunInOwnNetns } from '../cli/own-netns.ts';
import { runMain } from '../cli/run-main.ts';
import { backendSettings } from '../options/experiment-options.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { formatRepeats } from '../run/format-repeats.ts';
import { formatClusterRun } from '../run/format-run.ts';
import { runClusterExperiment } from '../run/run-cluster-experiment.ts';
import { CLUSTER_SCENARIOS } from '../run/scenarios/index.ts';
import { runCalibrateCommand, runLoadSmokeCommand } from '../run/checks/standalone-commands.ts';
import { runSuite } from '../campaigns/suite/run-suite.ts';

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
      backendSettings: backendSettings(flags),
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
  const { command, note, flags, params } = await parseExperimentArgs(process.argv.slice(2));
  const write = (t: string): void => {
    process.stderr.write(t);
  };
  if (note) write(note);
  const clock = createSystemClock();
  switch (command) {
    case 'suite':
      return runSuite({
        suite: flags.suite ?? 'seeds',
        ...(flags.only ? { only: flags.only } : {}),
        flags,
        clock,
        signal,
        write,
      });
    case 'load-smoke':
      return runLoadSmokeCommand(flags, clock, signal, write);
    case 'calibrate':
      return runCalibrateCommand(flags, clock, signal, write);
    case 'run':
      if (!params) throw new Error(`no cluster scenario ${flags.scenario}`);
      return runClusterScenario(params, flags, clock, signal, write);
  }
});
