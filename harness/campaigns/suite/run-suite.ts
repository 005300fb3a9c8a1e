import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { badInput, EXIT, formatDuration, makeDirectory } from '../../../lib/index.ts';
import type { Clock } from '../../../lib/index.ts';
import type { ExperimentFlags } from '../../options/experiment-options.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import { providerOf } from '../../../clusters/registry.ts';
import type { BackendName } from '../../../clusters/registry.ts';
import { createRunId } from '../../record/run-id.ts';
import { backendRefusal, DEFAULT_BACKEND, entryUnavailable } from './entry-availability.ts';
import { loadSuite, SUITE_FILE, suiteCopy } from './suite-file.ts';
import type { Suite, SuiteEntry } from './suite-file.ts';
import { entryDirName, entryRuns, summarizeSuite } from './summarize-suite.ts';
import type { RanEntry } from './summarize-suite.ts';

const EXPERIMENT_BIN = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');

/** An entry's note when one of its runs could not run (the child exited 3). */
const COULD_NOT_RUN = 'a run could not run (exit 3; its run folder says why)';

/**
 * The arguments of an entry's runs; on another backend than the default, that backend; with a
 * planted regression (test only: the gate's proof), that regression.
 */
export const entryArgs = (
  entry: SuiteEntry,
  repeats: number,
  backend?: string,
  planted?: string,
): string[] => [
  ...entry.args,
  '--repeat',
  String(repeats),
  ...(backend === undefined || backend === DEFAULT_BACKEND ? [] : ['--backend', backend]),
  ...(planted === undefined || planted === 'none' ? [] : ['--plant-regression', planted]),
];

/**
 * The entries `--only` selects (each whose experiment starts with it); a selection of none is bad
 * input, refused before the suite's folder is made, with the experiments there are.
 */
export function selectEntries(
  suite: Pick<Suite, 'name' | 'entries'>,
  only: string | undefined,
): SuiteEntry[] {
  const entries = suite.entries.filter((e) => only === undefined || e.experiment.startsWith(only));
  if (entries.length === 0)
    throw badInput(
      '--only',
      `the start of an experiment of suite ${suite.name}: ${[...new Set(suite.entries.map((e) => e.experiment))].join(', ')}`,
      only ?? '',
      `e.g. --only ${suite.entries[0]?.experiment ?? 'E1'}`,
    );
  return entries;
}

/**
 * `--suite seeds` (or a suite file): each entry is one `npm run experiment` child (its own process group, so Ctrl-C
 * reaches it once, through this process), with its own results folder under the suite's; then
 * one table, Markdown and CSV, of the document's figure next to ours and whether the shape holds.
 * The total time is bounded: every run is, and the estimate is printed before the first one.
 */
export async function runSuite(options: {
  /** A name under suites/ or a suite file's path. */
  suite: string;
  only?: string;
  flags: ExperimentFlags;
  clock: Clock;
  signal: AbortSignal;
  write: (t: string) => void;
}): Promise<number> {
  const { flags, write, signal } = options;
  const suite = await loadSuite(options.suite);
  const entries = selectEntries(suite, options.only);
  // What the backend cannot run is marked in the table; a selection of nothing it can run is refused.
  const refusals = entries.map((e) => backendRefusal(e, flags.backend));
  if (refusals.every((r) => r !== ''))
    throw badInput(
      '--suite',
      `a suite with an entry --backend ${flags.backend} can run`,
      `${suite.name}${options.only === undefined ? '' : ` --only ${options.only}`}`,
      refusals[0],
    );
  const repeatsOf = (e: SuiteEntry): number => flags.repeat ?? e.repeats;
  // What a run takes there: the entry's estimate and the backend's own cluster bring-up.
  const overheadS = providerOf(flags.backend as BackendName).runOverheadS;
  const entrySeconds = entries.map((e, i) => (refusals[i] ? 0 : (e.estimateS + overheadS) * repeatsOf(e)));
  const totalS = entrySeconds.reduce((s, x) => s + x, 0);
  const suiteId = createRunId(
    `suite-${options.only ?? suite.name}`,
    options.clock.now() + options.clock.wallOffsetMs,
  );
  const suiteDir = join(flags.resultsDir, suiteId);
  await makeDirectory(suiteDir);
  // The suite as it ran: the table can be rebuilt from the folder alone (npm run report).
  await writeFile(join(suiteDir, SUITE_FILE), suiteCopy(suite, entries));
  write(
    `suite ${suite.name} (${suite.path}): ${String(entries.length)} configurations${suite.interleave ? ' in interleaved rounds' : ''}, about ${formatDuration(totalS * 1000)} in all; results in ${suiteDir}\n`,
  );
  const startedMs = options.clock.now();
  let leftS = totalS;
  const notes = entries.map((e, i) => refusals[i] || entryUnavailable(e));
  const ranArgs = entries.map((e) => entryArgs(e, repeatsOf(e), flags.backend, flags.plantRegression));
  const plan = suitePlan(entries.map(repeatsOf), suite.interleave);
  for (const { entry: i, repeats, round } of plan) {
    const entry = entries[i];
    if (!entry) continue;
    const args = entryArgs(entry, repeats, flags.backend, flags.plantRegression);
    if (signal.aborted) notes[i] ||= 'not run: suite aborted';
    const share = (entrySeconds[i] ?? 0) * (repeats / repeatsOf(entry));
    leftS -= share;
    if (notes[i]) continue;
    const roundText = suite.interleave ? `round ${String(round)}/${String(plan.at(-1)?.round ?? 1)}, ` : '';
    write(
      `\n[${roundText}${String(i + 1)}/${String(entries.length)}] ${entry.experiment}: ${entry.configuration} - ${formatDuration(options.clock.now() - startedMs)} elapsed, about ${formatDuration((leftS + share) * 1000)} left\n` +
        `  npm run experiment -- ${args.join(' ')}\n`,
    );
    notes[i] = await runEntry(entry, args, join(suiteDir, entryDirName(i, entry)), signal);
  }
  const ran: RanEntry[] = [];
  for (const [i, entry] of entries.entries()) {
    const { rows, runDirs } = await entryRuns(join(suiteDir, entryDirName(i, entry)));
    ran.push({ entry, rows, runDirs, args: ranArgs[i] ?? [], note: notes[i] ?? '' });
  }
  const table = await summarizeSuite(suiteDir, suite.name, ran);
  if (signal.aborted) return EXIT.interrupted;
  // A suite whose entry could not run has no result to judge: not a failed shape, a broken run.
  if (ran.some((r) => r.note === COULD_NOT_RUN)) return EXIT.couldNotRun;
  return table.every((r) => r.shape !== 'no') ? EXIT.pass : EXIT.failed;
}

/**
 * The suite's children in order, each an entry (by index) and how many runs it makes: each entry's
 * repeats in one child, entry after entry; or, interleaved, in rounds of one run of every entry
 * that still has repeats left, so a drift of the machine over the suite falls on every entry alike.
 */
export function suitePlan(
  repeats: readonly number[],
  interleave: boolean,
): { entry: number; repeats: number; round: number }[] {
  if (!interleave) return repeats.map((n, entry) => ({ entry, repeats: n, round: 1 }));
  const rounds = Math.max(0, ...repeats);
  return Array.from({ length: rounds }, (_, r) =>
    repeats.flatMap((n, entry) => (r < n ? [{ entry, repeats: 1, round: r + 1 }] : [])),
  ).flat();
}

/**
 * One entry as an `npm run experiment` child (its own process group, so Ctrl-C reaches it once,
 * through this process); '' or why it has no full result.
 */
async function runEntry(
  entry: SuiteEntry,
  args: string[],
  entryDir: string,
  signal: AbortSignal,
): Promise<string> {
  const child = await execa(process.execPath, [EXPERIMENT_BIN, ...args, '--results-dir', entryDir], {
    stdio: 'inherit',
    detached: true,
    cancelSignal: signal,
    forceKillAfterDelay: 10_000,
    reject: false,
    cwd: PROJECT_ROOT,
  });
  if (signal.aborted) return 'aborted';
  if (child.exitCode === EXIT.badInput)
    throw badInput(`suite entry "${entry.configuration}"`, 'valid experiment flags', args.join(' '));
  if (child.exitCode === EXIT.couldNotRun) return COULD_NOT_RUN;
  return '';
}
