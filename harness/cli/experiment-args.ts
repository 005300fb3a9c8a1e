// Every check of `npm run experiment`'s input, in one place and with no side effect (files are only
// read): the experiment file, each flag's parser, the combinations, where the run would write. The
// CLI calls it before anything starts; tests call it to fuzz every option in process.
import { isAbsolute } from 'node:path';
import type { Command } from 'commander';
import { badInput } from '../../lib/index.ts';
import { expandExperimentFile } from './experiment-file.ts';
import { optionTable } from '../options/option-table.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { buildExperimentProgram, CLUSTER_SCENARIOS, paramsFromFlags } from './experiment-program.ts';
import type { ExperimentFlags } from './experiment-program.ts';
import { splitCommand } from './commands.ts';
import type { CommandName } from './commands.ts';
import { checkOpenFilesLimit } from './open-files-limit.ts';
import { checkOutputFile, checkOutputFolder } from './output-location.ts';
import { addVersionOption } from './version.ts';

export interface ExperimentArgs {
  /** The first word (run when the command line starts with an option). */
  command: CommandName;
  /** What to tell the user before anything runs (a former command line translated). */
  note?: string;
  program: Command;
  flags: ExperimentFlags;
  /** A cluster scenario's parameters (undefined for a suite, calibrate and load-smoke). */
  params?: ExperimentParams;
}

/**
 * What may go with --suite: each entry sets its own experiment (a flag beside it would be ignored).
 * --plant-regression goes to every entry: the gate's proof runs a whole suite from a worse build.
 */
const SUITE_FLAGS = new Set(['suite', 'only', 'repeat', 'resultsDir', 'backend', 'plantRegression']);

/** Arguments that are answered without reading an experiment file or checking anything else. */
const ANSWERED_AT_ONCE = new Set(['-h', '--help', '-V', '--version']);

function checkSuiteFlags(program: Command): void {
  const given = optionTable().find(
    (o) => !SUITE_FLAGS.has(o.attribute) && program.getOptionValueSource(o.attribute) === 'cli',
  );
  if (given)
    throw badInput(
      given.long,
      'not given with --suite (each entry sets its own experiment)',
      String(program.getOptionValue(given.attribute)),
      'change the entries in a copy of the suite file and run --suite <file>',
    );
}

/**
 * The file an absolute k6 output path names (`json=/x/k6.json`, `csv=/x/k6.csv`,
 * `web-dashboard=export=/x/k6.html`); relative ones land in the run's own k6 folder, made by the run.
 */
export function k6OutputFile(output: string): string | undefined {
  const [name = '', ...rest] = output.split('=');
  const argument = rest.join('=');
  const file =
    name === 'json' || name === 'csv'
      ? argument
      : name === 'web-dashboard'
        ? /(?:^|&)export=([^&]*)/.exec(argument)?.[1]
        : undefined;
  return file !== undefined && isAbsolute(file) ? file : undefined;
}

/** Refuses (exit 2, naming the flag and the path) any place the run would write but could not. */
function checkOutputLocations(flags: ExperimentFlags): void {
  checkOutputFolder('--results-dir', flags.resultsDir, './results');
  for (const output of (flags['k6Out'] as string[] | undefined) ?? []) {
    const file = k6OutputFile(output);
    if (file !== undefined) checkOutputFile('--k6-out', file, 'json=k6.json (in the run folder)', output);
  }
}

/**
 * `argv` (after `npm run experiment --`) checked in full: throws bad input (exit 2, commander's own
 * errors included) before anything is started or written. `program` is built here unless given
 * (tests pass one whose output they capture).
 */
export async function parseExperimentArgs(
  argv: readonly string[],
  program: Command = buildExperimentProgram(),
): Promise<ExperimentArgs> {
  addVersionOption(program);
  const answeredAtOnce = argv.some((arg) => ANSWERED_AT_ONCE.has(arg));
  const {
    command,
    argv: options,
    note,
  } = answeredAtOnce ? { command: 'run' as const, argv: [...argv] } : splitCommand(argv);
  const args = answeredAtOnce ? options : await expandExperimentFile(options);
  const flags = program.parse(args, { from: 'user' }).opts<ExperimentFlags>();
  const said = note === undefined ? {} : { note };
  if (flags.suite !== undefined && command !== 'suite')
    throw badInput(
      '--suite',
      `not given with ${command}`,
      flags.suite,
      'npm run experiment -- suite <name|file>',
    );
  if (flags.suite !== undefined) checkSuiteFlags(program);
  else if (flags.only !== undefined) throw badInput('--only', 'given with suite <name|file>', flags.only);
  checkOutputLocations(flags);
  const scenario = command === 'run' ? CLUSTER_SCENARIOS[flags.scenario] : undefined;
  if (!scenario) return { command, ...said, program, flags };
  const params = paramsFromFlags(program, flags, scenario);
  checkOpenFilesLimit(params.connections);
  return { command, ...said, program, flags, params };
}
