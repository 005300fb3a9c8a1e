// `npm run compare -- <baseline.csv> <candidate.csv>`: the nightly regression gate (`--across
// <column>=a,b`: one parameter's two values, e.g. two istio/ztunnel releases). Matches runs by
// scenario and parameters, tests failure rates and latency, prints a table; exit 1 on a significant
// regression or a baseline configuration the candidate lacks, 0 otherwise, 2 on malformed input (the line and column named).
import { appendFile, writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import { badInput, ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { parseAcross, splitAcross } from '../record/compare/across.ts';
import type { Across } from '../record/compare/across.ts';
import {
  compareRuns,
  comparisonJUnit,
  failsGate,
  formatComparison,
  formatLeaveOneOut,
  leaveOneOut,
  readRuns,
} from '../record/compare/index.ts';
import { errorAnnotation } from '../record/ci-output.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { outputFileParser } from '../cli/output-location.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';

function alphaParser(raw: string): number {
  const alpha = Number(raw);
  if (raw.trim() === '' || !(alpha > 0 && alpha < 1))
    throw badInput('--alpha', 'a number between 0 and 1 (exclusive)', raw);
  return alpha;
}

const ALPHA: Flag<number> = {
  key: 'alpha',
  arg: '<p>',
  description: 'family-wise false-alarm rate (Holm over all tests)',
  parse: alphaParser,
  default: 0.01,
};
const LEAVE_ONE_OUT: Flag<boolean> = {
  key: 'leave-one-out',
  description:
    "the gate's false alarms on one file of same-code runs (A/A): each run of every configuration in turn against the others; exit 1 if any round says worse",
};
const ACROSS: Flag<Across> = {
  key: 'across',
  arg: '<column=a,b>',
  description:
    "judge one parameter's two values against each other, the rest matched as usual: the baseline's runs where <column> is a, the candidate's where it is b (one runs.csv may be both), e.g. --across ztunnel_version=1.28.1,1.30.3",
  parse: parseAcross,
};
const ALLOW_MISSING: Flag<boolean> = {
  key: 'allow-missing',
  description: 'list a baseline configuration the candidate did not run instead of failing on it',
};
const MARKDOWN: Flag<string> = {
  key: 'markdown',
  arg: '<file>',
  description: 'also append the table to this file (e.g. $GITHUB_STEP_SUMMARY)',
  parse: outputFileParser('--markdown', 'compare.md'),
};
const JUNIT: Flag<string> = {
  key: 'junit',
  arg: '<file>',
  description: 'also write JUnit XML: a test case per configuration and metric, failed when worse',
  parse: outputFileParser('--junit', 'compare.xml'),
};

runMain(async () => {
  const program = addVersionOption(
    new Command('compare').description(
      'Compare two results CSVs (runs.csv) and fail on a significant regression',
    ),
  )
    .argument('<baseline.csv>', 'the reference runs, e.g. results/baselines/local-seeds.csv')
    .argument('[candidate.csv]', "the runs to judge, e.g. a suite folder's runs.csv")
    .addOption(commanderOption(ALPHA))
    .addOption(commanderOption(LEAVE_ONE_OUT))
    .addOption(commanderOption(ACROSS))
    .addOption(commanderOption(ALLOW_MISSING))
    .addOption(commanderOption(MARKDOWN))
    .addOption(commanderOption(JUNIT))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  const [baselinePath = '', candidateArg = ''] = program.args;
  const options = program.opts<{
    alpha: number;
    leaveOneOut?: boolean;
    across?: Across;
    allowMissing?: boolean;
    markdown?: string;
    junit?: string;
  }>();
  if (options.leaveOneOut) {
    if (candidateArg !== '')
      throw badInput('--leave-one-out', 'one runs.csv of same-code runs (no candidate)', candidateArg);
    const { text, falseAlarms } = formatLeaveOneOut(leaveOneOut(await readRuns(baselinePath), options.alpha));
    process.stdout.write(text);
    return falseAlarms > 0 ? 1 : 0;
  }
  // With --across one file holds both sides.
  const candidatePath = candidateArg || (options.across ? baselinePath : '');
  if (candidatePath === '')
    throw badInput(
      '<candidate.csv>',
      "a candidate runs.csv (or --leave-one-out for one file's A/A check, or --across for two values in one file)",
      '',
    );
  const baselineRows = await readRuns(baselinePath);
  // One file on both sides (--across) is read once.
  const candidateRows = candidatePath === baselinePath ? baselineRows : await readRuns(candidatePath);
  const { baseline, candidate } = options.across
    ? splitAcross(
        options.across,
        { rows: baselineRows, path: baselinePath },
        { rows: candidateRows, path: candidatePath },
      )
    : { baseline: baselineRows, candidate: candidateRows };
  const comparison = compareRuns(baseline, candidate, options.alpha);
  if (!comparison.metrics.length)
    throw new HarnessError(
      ErrorCode.BadInput,
      `No configuration appears in both ${baselinePath} (${String(baseline.length)} runs) and ${candidatePath} (${String(candidate.length)} runs), so nothing was compared; run the candidate with the baseline's parameters, or refresh the baseline`,
    );
  const allowMissing = options.allowMissing === true;
  const text = formatComparison(comparison, allowMissing);
  process.stdout.write(text);
  if (options.markdown)
    await appendFile(options.markdown, `## compare ${baselinePath} -> ${candidatePath}\n\n${text}`);
  if (options.junit) await writeFile(options.junit, comparisonJUnit(comparison, new Date(), allowMissing));
  // Under GitHub Actions each regression is also an error annotation on the run.
  for (const m of comparison.metrics.filter((x) => x.significance === 'worse'))
    process.stdout.write(
      errorAnnotation(
        `regression: ${m.configuration}`,
        `${m.metric}: ${String(m.baseline)} -> ${String(m.candidate)} ${m.unit} (Holm-adjusted p ${m.adjusted.higher.toPrecision(3)})`,
      ),
    );
  return failsGate(comparison, allowMissing) ? 1 : 0;
});
