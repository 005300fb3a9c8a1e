import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSummary, mergeStats } from './check-summary.ts';
import { listTestFiles, tierOf } from './test-files.ts';
import { PROJECT_ROOT } from '../../lib/index.ts';

test('a file in a test/ folder is an integration test; one beside its module is a unit test', async () => {
  assert.equal(tierOf('harness/bin/test/experiment-cli.test.ts'), 'integration');
  assert.equal(tierOf('lib/clock.test.ts'), 'unit');
  // A name that only contains "test" is not a test/ folder.
  assert.equal(tierOf('harness/testing/x.test.ts'), 'unit');
  const files = await listTestFiles(PROJECT_ROOT);
  assert.ok(files.some((f) => f.path === 'harness/check/check-summary.test.ts' && f.tier === 'unit'));
  assert.ok(files.every((f) => f.path.endsWith('.test.ts') && !f.path.startsWith('node_modules')));
});

test('the summary: the ten slowest files, each skip with its reason, the steps, the closing line', () => {
  const fileSeconds = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i)}.test.ts`, i]));
  const merged = mergeStats([
    {
      passed: 3,
      failed: 0,
      skipped: 1,
      todo: 0,
      fileSeconds,
      skips: [{ file: 'a.test.ts', name: 'k6 run', reason: 'no k6' }],
    },
    { passed: 2, failed: 1, skipped: 0, todo: 0, fileSeconds: {}, skips: [] },
  ]);
  const text = formatSummary(merged, [
    { name: 'lint', exitCode: 0, seconds: 12.2 },
    { name: 'integration tests', exitCode: 1, seconds: 300 },
  ]);
  const lines = text.trim().split('\n');
  assert.equal(lines.filter((l) => /^ +\d+\.\d {2}f\d+\.test\.ts$/.test(l)).length, 10);
  assert.match(text, / {4}11\.0 {2}f11\.test\.ts\n/);
  assert.doesNotMatch(text, /f0\.test\.ts|f1\.test\.ts/);
  assert.match(text, /skipped \(1\):\n {2}- a\.test\.ts: k6 run: no k6\n/);
  assert.match(text, /steps: lint 12 s, integration tests 300 s \(exit 1\)/);
  assert.equal(lines.at(-1), 'tests: 5 passed, 1 failed, 1 skipped');
});
