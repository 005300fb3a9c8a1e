// `npm run docs`: docs/reference.md, generated from the code (the experiment's option table, the
// scenarios' defaults, the exit codes, the run folder and the summary row), so it cannot drift from
// what the CLI does. generate-reference.test.ts fails when the committed file differs.
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Option } from 'commander';
import { format, resolveConfig } from 'prettier';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { buildExperimentProgram } from '../cli/experiment-program.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import { optionTable } from '../options/option-table.ts';
import { summaryColumnRoles } from '../record/column-roles.ts';
import { SUMMARY_COLUMNS, SUMMARY_SCHEMA_VERSION } from '../record/run-row.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { CLUSTER_SCENARIOS } from '../run/scenarios/index.ts';
import { COMMANDS } from '../cli/commands.ts';
import { RUN_FOLDER_FILES } from './run-folder-files.ts';

export const REFERENCE_PATH = join(PROJECT_ROOT, 'docs', 'reference.md');

/** Text for a table cell: pipes escaped (GFM tables, code spans included), `<` outside code spans too. */
function cell(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll('<', '&lt;')))
    .join('')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');
}

function code(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A default as the user would type it; paths under the repository relative to it. */
function formatDefault(value: unknown): string {
  if (value === undefined) return '';
  if (value === false) return 'off';
  if (typeof value === 'string')
    return code(value.startsWith(PROJECT_ROOT + sep) ? relative(PROJECT_ROOT, value) : value);
  return code(JSON.stringify(value));
}

const KIND_NOTE = { switch: 'switch', value: 'value', timing: 'repeatable, name=ms', list: 'repeatable' };

function optionsSection(): string {
  const program = buildExperimentProgram();
  const entries = optionTable();
  const inTable = new Set(entries.map((e) => e.long));
  // --help says the one-line description; the reference adds the entry's detail after it.
  const details = new Map(experimentOptions().map((o) => [`--${o.key}`, o.detail]));
  const row = (o: Option, kind: string, group = ''): string[] => {
    const detail = details.get(o.long ?? '');
    return [
      code(o.flags),
      group,
      kind,
      formatDefault(o.defaultValue),
      cell(detail ? `${o.description}; ${detail}` : o.description),
    ];
  };
  const experiment = entries.flatMap((e) => {
    const option = program.options.find((o) => o.long === e.long);
    return option ? [row(option, KIND_NOTE[e.kind], e.group ?? 'command')] : [];
  });
  const command = program.options.filter((o) => !inTable.has(o.long ?? '')).map((o) => row(o, 'value'));
  return [
    '## `npm run experiment` options',
    "Experiment options: each is also a key of an experiment file (`--config`, a suite entry's `run`, a run folder's `experiment.yaml`), under its long name. Each parameter is in a group (`ExperimentParams` is their union): topology (the cluster and what runs on it), load, fault, verdict, arms (the mitigations); backend: a backend's own option. A scenario may set other defaults (below); a flag given wins.",
    table(['flag', 'group', 'kind', 'default', 'description'], experiment),
    'How the command runs, not what an experiment is (not keys of an experiment file):',
    table(['flag', 'group', 'kind', 'default', 'description'], command),
  ].join('\n\n');
}

/** The flag each scenario default stands for (ScenarioDefaults' keys are parameter fields). */
const flagOfParam = (field: string): string =>
  `--${experimentOptions().find((o) => o.param === field)?.key ?? field}`;

function scenariosSection(): string {
  const rows = Object.values(CLUSTER_SCENARIOS).map((s) => {
    const defaults = Object.entries(s.defaults ?? {}).map(
      ([key, value]) => `${flagOfParam(key)} ${String(value)}`,
    );
    const criterion = [
      ...(s.defaultMaxFailed === undefined ? [] : [`failed<=${String(s.defaultMaxFailed)}`]),
      ...(s.defaultThresholds ?? []),
    ];
    return [code(s.name), cell(s.summary), cell(criterion.map(code).join(', ')), cell(defaults.join(', '))];
  });
  return [
    '## Cluster scenarios and their defaults',
    `\`npm run experiment -- <command>\`: ${Object.entries(COMMANDS)
      .map(([name, what]) => `\`${name}\` (${what})`)
      .join('; ')}. Only \`run\` takes a scenario.`,
    table(
      ['scenario', 'what it does', 'passes with (`--max-failed`, `--threshold`)', 'defaults it sets'],
      rows,
    ),
  ].join('\n\n');
}

/** Each error code's doc comment in lib/errors.ts. */
async function errorCodeNotes(): Promise<Map<string, string>> {
  const source = await readFile(join(PROJECT_ROOT, 'lib', 'errors.ts'), 'utf8');
  const notes = new Map<string, string>();
  for (const m of source.matchAll(/\/\*\*\s*([^*]*?)\s*\*\/\s*\n\s*(\w+):/g))
    if (m[1] !== undefined && m[2] !== undefined) notes.set(m[2], m[1]);
  return notes;
}

async function exitCodesSection(): Promise<string> {
  const notes = await errorCodeNotes();
  const byExit = (exit: number): string =>
    Object.entries(ErrorCode)
      .filter(([, c]) => new HarnessError(c, '').exitCode === exit)
      .map(([name, c]) => `${code(c)} (${notes.get(name) ?? name})`)
      .join('; ');
  const rows = [
    ['0', 'the verdict passed (every threshold held; with `--suite`, every shape held); `--help`'],
    [
      '1',
      'the experiment ran and its result is a failure: a verdict failed, a suite shape did not hold, `compare` found a significant regression',
    ],
    ['2', `input to fix before anything starts: ${byExit(2)}; a flag the parser refuses (unknown, no value)`],
    [
      '3',
      `the experiment could not run (no result to judge; the run folder is kept with verdict \`aborted\` and why): ${byExit(3)}; an uncaught error in an in-process component; an internal error. Scripts and CI treat it as a failure of the tool, not of the system under test`,
    ],
    [
      '130',
      'interrupted (Ctrl-C or SIGTERM): children stopped, the run folder kept with verdict `aborted`; a second signal exits at once',
    ],
  ];
  return [
    '## Exit codes',
    'The same for `npm run experiment`, `report`, `compare` and the other commands (`harness/cli/run-main.ts`, `lib/errors.ts`).',
    table(
      ['exit', 'when'],
      rows.map(([exit = '', when = '']) => [exit, cell(when)]),
    ),
  ].join('\n\n');
}

function runFolderSection(): string {
  const rows = RUN_FOLDER_FILES.map((f) => [code(f.path), cell(f.holds), code(f.writtenBy)]);
  return [
    '## The run folder',
    'Each run writes `<results-dir>/<run id>/` (default `results/`); empty tables are not written.',
    table(['file', 'what it holds', 'written by'], rows),
  ].join('\n\n');
}

function roleOf(column: string): string {
  const spec = summaryColumnRoles().get(column);
  if (!spec) return 'parameter';
  return spec.olderRowsRan === undefined
    ? spec.role
    : `${spec.role} (older rows: ${spec.olderRowsRan === '' ? 'empty' : code(spec.olderRowsRan)})`;
}

function columnsSection(): string {
  const own = Object.values(CLUSTER_SCENARIOS).flatMap((s) =>
    Object.entries(s.companionColumns ?? {}).map(([c, note]) => [
      code(c),
      roleOf(c),
      cell(`${note} (summary.csv of ${s.name} only)`),
    ]),
  );
  return [
    `## summary.csv and runs.csv columns (schema ${String(SUMMARY_SCHEMA_VERSION)})`,
    "In this order (`harness/record/run-row.ts`); a scenario's own columns follow in its summary.csv. Role: `npm run compare` keys configurations on the parameters (a column it does not know counts as one); measures are what it compares; bookkeeping is neither (`harness/run/column-roles.ts`).",
    table(
      ['column', 'role', 'what it holds'],
      [...SUMMARY_COLUMNS.map((c) => [code(c.name), roleOf(c.name), cell(c.note)]), ...own],
    ),
  ].join('\n\n');
}

/** docs/reference.md as the code defines it today, formatted as `prettier --check` wants it. */
export async function generateReference(): Promise<string> {
  const markdown = [
    '<!-- Generated by harness/reference/generate-reference.ts: do not edit; run `npm run docs`. -->',
    '# Reference',
    "Generated from the code: the options of `npm run experiment`, the scenarios' defaults, exit codes, the run folder and the summary row. The user guide is [docs/guide/](guide/README.md).",
    optionsSection(),
    scenariosSection(),
    await exitCodesSection(),
    runFolderSection(),
    columnsSection(),
  ].join('\n\n');
  const config = (await resolveConfig(REFERENCE_PATH)) ?? {};
  return format(markdown, { ...config, filepath: REFERENCE_PATH });
}

if (import.meta.main) {
  const markdown = await generateReference();
  if (process.argv.includes('--write')) {
    await writeFile(REFERENCE_PATH, markdown);
    process.stdout.write(`wrote ${relative(process.cwd(), REFERENCE_PATH)}\n`);
  } else process.stdout.write(markdown);
}
