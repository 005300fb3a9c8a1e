// `npm run check-runs -- <runs.csv> --rows <n> [--backend <name>] [--filled <columns>] [--shape <s>]`:
// CI's check that the runs it started left results, not only exit codes: exactly n complete rows (an
// aborted run is no result), each with requests, from the backend named, the columns named measured,
// and each run (its folder beside runs.csv) of the shape named (run-shape.ts). Exit 0 when they
// are there, 1 when not.
import { Command } from 'commander';
import { readRuns } from '../record/compare/read-runs.ts';
import { choiceParser, numberParser } from '../options/parse-values.ts';
import { BACKEND_NAMES } from '../../clusters/registry.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { badInput, EXIT } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { SUMMARY_COLUMN_NAMES } from '../record/run-row.ts';
import { checkRuns } from '../record/check-runs.ts';
import { checkShape, SHAPES } from '../record/run-shape.ts';
import type { RunShape } from '../record/run-shape.ts';
import { dirname, join } from 'node:path';

/** Column names of runs.csv, comma-separated; an unknown one is bad input. */
function parseColumns(raw: string): string[] {
  const columns = raw.split(',').filter((c) => c !== '');
  const unknown = columns.find((c) => !SUMMARY_COLUMN_NAMES.includes(c));
  if (unknown !== undefined || columns.length === 0)
    throw badInput('--filled', 'columns of runs.csv, comma-separated (docs/reference.md)', raw);
  return columns;
}

const ROWS: Flag<number> = {
  key: 'rows',
  arg: '<n>',
  description: 'how many complete runs it must hold',
  parse: numberParser('--rows', { min: 1, max: 1000, integer: true }),
};
const BACKEND: Flag<string> = {
  key: 'backend',
  arg: '<name>',
  description: 'the backend every row must come from',
  parse: choiceParser('--backend', BACKEND_NAMES),
};
const FILLED: Flag<string[]> = {
  key: 'filled',
  arg: '<columns>',
  description: 'columns every row must have measured (comma-separated)',
  parse: parseColumns,
};
const SHAPE: Flag<RunShape> = {
  key: 'shape',
  arg: '<shape>',
  description: `what every run must look like: ${SHAPES.join(', ')}`,
  parse: choiceParser('--shape', SHAPES),
};

runMain(async () => {
  const program = addVersionOption(
    new Command('check-runs').description(
      'Check that a runs.csv holds the complete runs a job started (the nightly kind job)',
    ),
  )
    .argument('<runs-csv>', 'a runs.csv written by npm run experiment')
    // A flag cannot say it is required: commander's mandatory option does.
    .addOption(commanderOption(ROWS).makeOptionMandatory())
    .addOption(commanderOption(BACKEND))
    .addOption(commanderOption(FILLED))
    .addOption(commanderOption(SHAPE))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  const options = program.opts<{ rows: number; backend?: string; filled?: string[]; shape?: RunShape }>();
  const [path = ''] = program.args;
  const runs = await readRuns(path);
  const problems = checkRuns(runs, options);
  const shape = options.shape;
  if (shape)
    for (const run of runs)
      problems.push(...(await checkShape(shape, run, join(dirname(path), run.values['run_id'] ?? ''))));
  for (const problem of problems) process.stderr.write(`${path}: ${problem}\n`);
  if (problems.length === 0)
    process.stdout.write(
      `${path}: ${String(options.rows)} complete runs${shape ? `, each of the shape ${shape}` : ''}\n`,
    );
  return problems.length === 0 ? EXIT.pass : EXIT.failed;
});
