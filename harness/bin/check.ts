// `npm run check` (what CI runs): the typecheck, the lint and the unit tests side by side (each
// in-process work, none timed), then the integration tests one file at a time (real processes and
// timing assertions: alone on the machine). `npm test` runs the two test tiers only; with files named,
// just those, each in its tier. Ends with the ten slowest test files, every skip with its reason, and
// `tests: N passed, N failed, N skipped`.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { badInput, PROJECT_ROOT } from '../../lib/index.ts';
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

/** How each tier runs: the unit files in one process, the integration files one after another. */
const TIER_FLAGS: Record<Tier, readonly string[]> = {
  unit: ['--test-isolation=none'],
  integration: ['--test-concurrency=1'],
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

runMain(async (signal) => {
  const program = addVersionOption(
    new Command('check').description(
      'Typecheck, lint and the unit tests side by side, then the integration tests one at a time',
    ),
  )
    .option('--tests-only', 'only the two test tiers (npm test)')
    .argument('[files...]', 'test files to run (each in its tier); implies --tests-only')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  const named = program.args;
  const testsOnly = program.opts<{ testsOnly?: boolean }>().testsOnly === true || named.length > 0;
  const all = await listTestFiles(PROJECT_ROOT);
  for (const file of named)
    if (!file.endsWith('.test.ts') && !file.endsWith('.ts'))
      throw badInput('a test file', 'a path to a *.test.ts file', file);
  const files = (tier: Tier): string[] =>
    named.length > 0
      ? named.filter((f) => tierOf(f) === tier)
      : all.filter((f) => f.tier === tier).map((f) => f.path);
  const dir = await mkdtemp(join(tmpdir(), 'check-'));
  const cwd = PROJECT_ROOT;
  try {
    const statsOf = (tier: Tier): string => join(dir, `${tier}.json`);
    const say = (t: string): boolean => process.stdout.write(t);
    const tier = (name: Tier, stream: boolean): Promise<StepResult> | undefined => {
      const list = files(name);
      return list.length === 0
        ? undefined
        : runStep(`${name} tests`, tierCommand(name, list, statsOf(name)), {
            cwd,
            stream,
            signal,
            env: { NODE_COMPILE_CACHE: COMPILE_CACHE },
          });
    };
    const side = [
      ...(testsOnly
        ? []
        : [
            runStep('typecheck', ['npm', 'run', '--silent', 'typecheck'], { cwd, signal }),
            runStep('lint', ['npm', 'run', '--silent', 'lint'], { cwd, signal }),
          ]),
      tier('unit', false),
    ].filter((p) => p !== undefined);
    say(`== ${side.length > 1 ? 'side by side: ' : ''}${testsOnly ? '' : 'typecheck, lint, '}unit tests\n`);
    const results = await Promise.all(side);
    for (const r of results)
      say(
        `== ${r.name}: ${r.exitCode === 0 ? 'ok' : `failed (exit ${String(r.exitCode)})`} in ${r.seconds.toFixed(0)} s\n${r.output}`,
      );
    say('== integration tests, one file at a time\n');
    const integration = await tier('integration', true);
    if (integration) results.push(integration);
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
