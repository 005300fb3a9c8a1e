import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeSuiteReport } from './suite-report.ts';
import { appendJobSummary } from '../../record/ci-output.ts';
import { buildJUnit } from '../../record/junit.ts';
import { readCsvRows as readRows, writeCsv } from '../../record/write-csv.ts';
import { ENTRY_REPORTS } from './entry-reports.ts';
import { blankColumns, judgeShape } from './shape-rule.ts';
import type { Row } from './shape-rule.ts';
import type { SuiteEntry } from './suite-file.ts';
import { formatSuiteMarkdown } from './suite-table.ts';
import type { SuiteTableRow } from './suite-table.ts';

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 48);

/** The folder of the i-th entry (0-based) inside a suite folder. */
export function entryDirName(i: number, entry: SuiteEntry): string {
  return `${String(i + 1).padStart(2, '0')}-${slug(`${entry.experiment} ${entry.configuration}`)}`;
}

/** Every run an entry made: runs.csv names them, each run folder's summary.csv has the full row. */
export async function entryRuns(entryDir: string): Promise<{ rows: Row[]; runDirs: string[] }> {
  const rows: Row[] = [];
  const runDirs: string[] = [];
  for (const run of await readRows(join(entryDir, 'runs.csv'))) {
    const dir = join(entryDir, String(run['run_id']));
    runDirs.push(dir);
    rows.push(...(await readRows(join(dir, 'summary.csv'))));
  }
  return { rows, runDirs };
}

export interface RanEntry {
  entry: SuiteEntry;
  rows: Row[];
  runDirs: string[];
  args: string[];
  /** Why there is no result (not available, aborted), or ''. */
  note: string;
}

/**
 * yes or no: whether the runs show the document's shape; '-' when there is nothing to judge (no
 * rule, no rows, a note), or when the rows leave a column the rule reads empty (a backend that does
 * not measure it), which says so rather than failing the shape.
 */
function shapeCell(
  entry: SuiteEntry,
  rows: readonly Row[],
  note: string,
  all: ReadonlyMap<string, Row[]>,
): string {
  if (!entry.shape || !rows.length || note) return '-';
  const blank = blankColumns(entry.shape, rows);
  if (blank.length > 0) return `- (not measured here: ${blank.join(', ')})`;
  return judgeShape(entry.shape, rows, all) ? 'yes' : 'no';
}

/**
 * The suite table (document vs ours, shape), written as suite.csv, suite.md, suite.html and junit.xml
 * (a test case per configuration), and to the GitHub job summary under Actions.
 */
export async function summarizeSuite(
  suiteDir: string,
  suite: string,
  ran: RanEntry[],
): Promise<SuiteTableRow[]> {
  const byConfiguration = new Map(ran.map((r) => [r.entry.configuration, r.rows]));
  const table: SuiteTableRow[] = ran.map(({ entry, rows, args, note }) => ({
    experiment: entry.experiment,
    configuration: entry.configuration,
    repeats: rows.length,
    document: entry.documentFigure,
    ours: rows.length
      ? `${ENTRY_REPORTS[entry.report](rows)}${note ? ` (${note})` : ''}`
      : note || 'no result',
    shape: shapeCell(entry, rows, note, byConfiguration),
    reproduce: `npm run experiment -- ${args.join(' ')}`,
  }));
  await writeCsv(join(suiteDir, 'suite.csv'), table as unknown as Row[]);
  await writeSuiteRuns(suiteDir, ran);
  const markdown = formatSuiteMarkdown(table);
  await writeFile(join(suiteDir, 'suite.md'), markdown);
  await writeFile(join(suiteDir, 'junit.xml'), suiteJUnit(suite, table));
  await appendJobSummary(`### Suite ${suite}: the documents' figures next to ours\n\n${markdown}`);
  const html = await writeSuiteReport(
    suiteDir,
    `suite ${suite}: the source documents' figures next to ours`,
    table.map((row, i) => ({ row, runDirs: ran[i]?.runDirs ?? [] })),
  );
  process.stdout.write(`\n${markdown}\nsuite folder: ${suiteDir}\nreport: ${html}\n`);
  return table;
}

/** A test case per configuration: its document's shape held (pass), did not (fail), or no check (skipped). */
export function suiteJUnit(suite: string, table: readonly SuiteTableRow[]): string {
  return buildJUnit(
    `ztunnel-harness suite ${suite}`,
    table.map((row) => ({
      className: `ztunnel-harness.suite.${row.experiment.replace(/\s+/g, '-')}`,
      name: row.configuration,
      outcome: row.shape === 'yes' ? 'pass' : row.shape === 'no' ? 'fail' : 'skipped',
      message: `document: ${row.document}; ours: ${row.ours}; reproduce: ${row.reproduce}`,
    })),
    new Date(),
  );
}

/**
 * Every run of every entry in one runs.csv (the common summary columns, one schema), the candidate
 * `npm run compare` takes against a committed baseline.
 */
async function writeSuiteRuns(suiteDir: string, ran: RanEntry[]): Promise<void> {
  const entryDirs = [...new Set(ran.flatMap((r) => r.runDirs.map((d) => dirname(d))))];
  const rows = (await Promise.all(entryDirs.map((d) => readRows(join(d, 'runs.csv'))))).flat();
  if (rows.length) await writeCsv(join(suiteDir, 'runs.csv'), rows);
}
