// `npm run check` (what CI runs): the integration tests one file at a time (real processes and timing
// assertions), and beside them at the lowest CPU priority the typecheck, the lint and the unit tests
// (in-process work, nothing timed). `npm test` runs the two test tiers only; with files named,
// just those, each in its tier. Ends with the ten slowest test files, every skip with its reason, and
// `tests: N passed, N failed, N skipped`.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { badInput, PROJECT_ROOT } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';
import { runStep } from '../check/check-step.ts';
import type { StepResult } from '../check/check-step.ts';
import { formatSummary, mergeStats } from '../check/check-summary.ts';
import { listTestFiles, tierOf } from '../check/test-files.ts';
import type { Tier } from '../check/test-files.ts';
import type { TierStats } from '../check/test-stats-reporter.ts';

const REPORTER = join(PROJECT_ROOT, 'harness', 'check', 'test-stats-reporter.ts');

/**
 * Node's compile cache for every process the tests start (test files, our commands, the cluster's
 * components): each loads the same few hundred TypeScript files, and a warm cache takes a command's
 * start from about 0.73 s to 0.48 s here. Keyed by content, so a changed file is compiled again.
 */
const COMPILE_CACHE = join(PROJECT_ROOT, 'node_modules', '.cache', 'node-compile');

/** The steps that time nothing run beside the integration tests at the lowest CPU priority. */
const NICE = ['nice', '-n', '19'] as const;

/**
 * How each tier runs: each in one process (--test-isolation=none: a file's tests run in the runner's
 * process, which saves the half second each file's own process took to start and load the project);
 * the integration files one after another, each test awaited before the next (--test-concurrency=1).
 */
const TIER_FLAGS: Record<Tier, readonly string[]> = {
  unit: ['--test-isolation=none'],
  integration: ['--test-isolation=none', '--test-concurrency=1'],
};

function tierCommand(tier: Tier, files: readonly string[], statsFile: string): string[] {
  return [
    process.execPath,
    '--test',
    ...TIER_FLAGS[tier],
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${REPORTER}`,
    `--test-reporter-destination=${statsFile}`,
    ...files,
  ];
}

const TESTS_ONLY: Flag<boolean> = { key: 'tests-only', description: 'only the two test tiers (npm test)' };

runMain(async (signal) => {
  const program = addVersionOption(
    new Command('check').description(
      'The integration tests one at a time; beside them at the lowest priority the typecheck, the lint and the unit tests',
    ),
  )
    .addOption(commanderOption(TESTS_ONLY))
    .argument('[files...]', 'test files to run (each in its tier); implies --tests-only')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  const named = program.args;
  const testsOnly = program.opts<{ testsOnly?: boolean }>().testsOnly === true || named.length > 0;
  const all = await listTestFiles(PROJECT_ROOT);
  for (const file of named)
    if (!file.endsWith('.ts') || !existsSync(file))
      throw badInput('a test file', 'the path of an existing *.test.ts file', file);
  const files = (tier: Tier): string[] =>
    named.length > 0
      ? named.filter((f) => tierOf(f) === tier)
      : all.filter((f) => f.tier === tier).map((f) => f.path);
  const dir = await mkdtemp(join(tmpdir(), 'check-'));
  const cwd = PROJECT_ROOT;
  try {
    const statsOf = (tier: Tier): string => join(dir, `${tier}.json`);
    const say = (t: string): boolean => process.stdout.write(t);
    const tier = (
      name: Tier,
      stream: boolean,
      prefix: readonly string[] = [],
    ): Promise<StepResult> | undefined => {
      const list = files(name);
      return list.length === 0
        ? undefined
        : runStep(`${name} tests`, [...prefix, ...tierCommand(name, list, statsOf(name))], {
            cwd,
            stream,
            signal,
            env: { NODE_COMPILE_CACHE: COMPILE_CACHE },
          });
    };
    // The integration tests run one file at a time, streamed; beside them, at the lowest CPU priority,
    // the typecheck, the lint and the unit tests (none of which times anything): the kernel gives a
    // timed test's processes the CPU whenever they want it (nice 19 weighs 15 against nice 0's 1024),
    // and the second core, which the integration tests leave idle nearly half the time, does the rest.
    say(
      `== integration tests, one file at a time${testsOnly ? '' : '; beside them (nice 19): typecheck, lint'}${files('unit').length > 0 ? ', unit tests' : ''}\n`,
    );
    const integration = tier('integration', true);
    const side = [
      ...(testsOnly
        ? []
        : [
            runStep('typecheck', [...NICE, 'npm', 'run', '--silent', 'typecheck'], { cwd, signal }),
            runStep('lint', [...NICE, 'npm', 'run', '--silent', 'lint'], { cwd, signal }),
          ]),
      tier('unit', false, NICE),
    ].filter((p) => p !== undefined);
    const results = await Promise.all(side);
    const timed = await integration;
    for (const r of results)
      say(
        `== ${r.name}: ${r.exitCode === 0 ? 'ok' : `failed (exit ${String(r.exitCode)})`} in ${r.seconds.toFixed(0)} s\n${r.output}`,
      );
    if (timed) results.push(timed);
    const stats: TierStats[] = [];
    for (const name of ['unit', 'integration'] as const) {
      const text = await readFile(statsOf(name), 'utf8').catch(() => '');
      if (text.trim()) stats.push(JSON.parse(text) as TierStats);
    }
    const merged = mergeStats(stats);
    say(formatSummary(merged, results));
    return results.every((r) => r.exitCode === 0) && merged.failed === 0 ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
