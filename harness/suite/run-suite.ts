import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { badInput, formatDuration } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { writeCsv } from '../results/write-csv.ts';
import { createRunId } from '../scenarios/load-smoke.ts';
import { flagsToArgs } from './flags-to-args.ts';
import { SEED_SUITE } from './seed-suite.ts';
import type { Row, SuiteEntry } from './seed-suite.ts';
import { formatSuiteMarkdown } from './suite-table.ts';
import type { SuiteTableRow } from './suite-table.ts';

const EXPERIMENT_BIN = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');

async function readRows(path: string): Promise<Row[]> {
  if (!existsSync(path)) return [];
  return parse<Row>(await readFile(path, 'utf8'), { columns: true });
}

/** Every run an entry made: runs.csv names them, each run folder's summary.csv has the full row. */
async function entryRows(entryDir: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const run of await readRows(join(entryDir, 'runs.csv')))
    rows.push(...(await readRows(join(entryDir, String(run['run_id']), 'summary.csv'))));
  return rows;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 48);

/**
 * `--suite seeds`: each entry is one `npm run experiment` child (its own process group, so Ctrl-C
 * reaches it once, through this process), with its own results folder under the suite's; then
 * one table, Markdown and CSV, of the document's figure next to ours and whether the shape holds.
 * The total time is bounded: every run is, and the estimate is printed before the first one.
 */
export async function runSuite(options: {
  suite: 'seeds';
  only?: string;
  flags: ExperimentFlags;
  clock: Clock;
  signal: AbortSignal;
  write: (t: string) => void;
}): Promise<number> {
  const { flags, write, signal } = options;
  const isAborted = (): boolean => signal.aborted;
  const entries = SEED_SUITE.filter((e) => !options.only || e.experiment.startsWith(options.only));
  const repeatsOf = (e: SuiteEntry): number => flags.repeat ?? e.repeats;
  const totalS = entries.reduce((s, e) => s + e.estimateS * repeatsOf(e), 0);
  const suiteId = createRunId(
    `suite-${options.only ?? options.suite}`,
    options.clock.now() + options.clock.wallOffsetMs,
  );
  const suiteDir = join(flags.resultsDir, suiteId);
  await mkdir(suiteDir, { recursive: true });
  write(
    `suite ${options.suite}: ${String(entries.length)} configurations, about ${formatDuration(totalS * 1000)} in all; results in ${suiteDir}\n`,
  );
  const byConfiguration = new Map<string, Row[]>();
  const ran: { entry: SuiteEntry; rows: Row[]; args: string[]; note: string }[] = [];
  const startedMs = options.clock.now();
  let leftS = totalS;
  for (const [i, entry] of entries.entries()) {
    const args = flagsToArgs({ ...entry.flags, repeat: repeatsOf(entry) });
    const entryDir = join(
      suiteDir,
      `${String(i + 1).padStart(2, '0')}-${slug(`${entry.experiment} ${entry.configuration}`)}`,
    );
    let note = '';
    if (signal.aborted) note = 'not run: suite aborted';
    else if (entry.flags.tcpMigrateReq === '1' && process.getuid?.() !== 0)
      note = 'not available: tcp_migrate_req=1 needs root for a network namespace of its own';
    else {
      write(
        `\n[${String(i + 1)}/${String(entries.length)}] ${entry.experiment}: ${entry.configuration} - ${formatDuration(options.clock.now() - startedMs)} elapsed, about ${formatDuration(leftS * 1000)} left\n` +
          `  npm run experiment -- ${args.join(' ')}\n`,
      );
      const child = await execa(process.execPath, [EXPERIMENT_BIN, ...args, '--results-dir', entryDir], {
        stdio: 'inherit',
        detached: true,
        cancelSignal: signal,
        forceKillAfterDelay: 10_000,
        reject: false,
        cwd: PROJECT_ROOT,
      });
      if (child.exitCode === 2 && !isAborted())
        throw badInput(`suite entry "${entry.configuration}"`, 'valid experiment flags', args.join(' '));
      if (isAborted()) note = 'aborted';
    }
    leftS -= entry.estimateS * repeatsOf(entry);
    const rows = await entryRows(entryDir);
    byConfiguration.set(entry.configuration, rows);
    ran.push({ entry, rows, args, note });
  }
  const table: SuiteTableRow[] = ran.map(({ entry, rows, args, note }) => ({
    experiment: entry.experiment,
    configuration: entry.configuration,
    repeats: rows.length,
    document: entry.documentFigure,
    ours: rows.length ? entry.ours(rows) : note || 'no result',
    shape: rows.length && !note ? (entry.shape(rows, byConfiguration) ? 'yes' : 'no') : '-',
    reproduce: `npm run experiment -- ${args.join(' ')}`,
  }));
  await writeCsv(join(suiteDir, 'suite.csv'), table as unknown as Row[]);
  const markdown = formatSuiteMarkdown(table);
  await writeFile(join(suiteDir, 'suite.md'), markdown);
  process.stdout.write(`\n${markdown}\nsuite folder: ${suiteDir}\n`);
  if (signal.aborted) return 130;
  return table.every((r) => r.shape !== 'no') ? 0 : 1;
}
