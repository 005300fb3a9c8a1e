// `npm run compare` as the nightly job meets it: the committed sample CSVs (real runs, one planted
// regression), exit codes, and malformed input named by line and column.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'compare.ts');
const BASELINE = join(PROJECT_ROOT, 'results', 'baselines', 'sample-baseline.csv');
const CANDIDATE = join(PROJECT_ROOT, 'results', 'baselines', 'sample-candidate.csv');

const runCompare = (...args: string[]) =>
  execa(process.execPath, [CLI, ...args], {
    reject: false,
    stdin: 'ignore',
    timeout: 20_000,
    env: { GITHUB_ACTIONS: '' },
  });

const rowOf = (stdout: string, configuration: string, metric: string): string[] =>
  stdout
    .split('\n')
    .find((l) => l.includes(`| ${configuration} `) && l.includes(`| ${metric} `))
    ?.split('|')
    .map((c) => c.trim()) ?? [];

test('the planted regression (preStop arm: 0 -> 22 503s in 24,000 requests) fails the gate; the noise does not', async () => {
  const { exitCode, stdout } = await runCompare(BASELINE, CANDIDATE);
  assert.equal(exitCode, 1, stdout);
  assert.equal(rowOf(stdout, 'workload-rollout prestop_sleep_s=5', 'failed /100k').at(-2), 'WORSE');
  assert.match(
    stdout,
    /^REGRESSION: workload-rollout prestop_sleep_s=5 failed; workload-rollout prestop_sleep_s=5 http_503$/m,
  );
  // Without preStop: 72 vs 64 503s over 4 runs each, and p99 8.5 -> 16.5 ms: run-to-run noise.
  for (const metric of ['failed /100k', 'http_503 /100k', 'p50_ms', 'p99_ms'])
    assert.equal(rowOf(stdout, 'workload-rollout prestop_sleep_s=0', metric).at(-2), '~', metric);
  assert.match(stdout, /Latency with 4\/4 runs cannot reach alpha 0\.01/);
});

test('CI output: JUnit with the regression as a failed case; under Actions an error annotation', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'compare-junit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const junit = join(dir, 'compare.xml');
  const { exitCode, stdout } = await execa(process.execPath, [CLI, BASELINE, CANDIDATE, '--junit', junit], {
    reject: false,
    stdin: 'ignore',
    env: { GITHUB_ACTIONS: 'true' },
  });
  assert.equal(exitCode, 1);
  assert.match(stdout, /^::error title=regression%3A workload-rollout prestop_sleep_s=5::failed: /m);
  const xml = await readFile(junit, 'utf8');
  const failed = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)">\s*<failure/g)].map(
    (m) => `${m[1] ?? ''} ${m[2] ?? ''}`,
  );
  assert.deepEqual(failed, [
    'ztunnel-harness.compare.workload-rollout prestop_sleep_s=5 failed',
    'ztunnel-harness.compare.workload-rollout prestop_sleep_s=5 http_503',
  ]);
  assert.match(xml, /<testsuites tests="\d+" failures="2" errors="0">/);
});

test('a file against itself: nothing significant, exit 0', async () => {
  const { exitCode, stdout } = await runCompare(BASELINE, BASELINE, '--alpha', '0.05');
  assert.equal(exitCode, 0, stdout);
  assert.match(stdout, /^No significant regression\.$/m);
  assert.doesNotMatch(stdout, /WORSE|better/);
});

test('malformed input exits 2 naming the file, line and column, and writes nothing', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'compare-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const lines = (await readFile(CANDIDATE, 'utf8')).split('\n');
  const header = (lines[0] ?? '').split(',');
  const badValue = [...lines];
  const cells = (badValue[3] ?? '').split(',');
  cells[header.indexOf('requests')] = 'lots';
  badValue[3] = cells.join(',');
  const badValuePath = join(dir, 'bad-value.csv');
  await writeFile(badValuePath, badValue.join('\n'));
  const shortRow = [...lines];
  shortRow[5] = '2,run-x,workload-rollout';
  const shortRowPath = join(dir, 'short-row.csv');
  await writeFile(shortRowPath, shortRow.join('\n'));
  const noColumn = [lines[0]?.replace(',requests,', ',reqs,'), ...lines.slice(1)];
  const noColumnPath = join(dir, 'no-column.csv');
  await writeFile(noColumnPath, noColumn.join('\n'));
  const summary = join(dir, 'summary.md');
  const cases: [string, RegExp][] = [
    [
      badValuePath,
      /bad-value\.csv: line 4, column 10 \(requests\): expected a non-negative integer, got "lots"/,
    ],
    [
      shortRowPath,
      /short-row\.csv: line 6, column .*Invalid Record Length: columns length is \d+, got 3 on line 6/,
    ],
    [noColumnPath, /no-column\.csv: line 1, column requests: the header has no "requests" column/],
    [join(dir, 'missing.csv'), /Cannot read .*missing\.csv: ENOENT/],
  ];
  for (const [path, message] of cases) {
    const { exitCode, stderr } = await runCompare(BASELINE, path, '--markdown', summary);
    assert.equal(exitCode, 2, stderr);
    assert.match(stderr, message);
  }
  await assert.rejects(readFile(summary), /ENOENT/);
});

test('no configuration in common, or a bad --alpha, is bad input (exit 2)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'compare-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const other = (await readFile(BASELINE, 'utf8')).replaceAll(',ambient,30,50,', ',ambient,90,50,');
  const otherPath = join(dir, 'grace-90.csv');
  await writeFile(otherPath, other);
  const unmatched = await runCompare(BASELINE, otherPath);
  assert.equal(unmatched.exitCode, 2);
  assert.match(
    unmatched.stderr,
    /No configuration appears in both .*sample-baseline\.csv \(8 runs\) and .*grace-90\.csv \(8 runs\)/,
  );
  const alpha = await runCompare(BASELINE, CANDIDATE, '--alpha', '1.5');
  assert.equal(alpha.exitCode, 2);
  assert.match(alpha.stderr, /Expected --alpha to be a number between 0 and 1 \(exclusive\), got "1.5"/);
});
