// .ci/nightly's own input: what it is given wrong is refused at once (exit 2, said), before any run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';

const NIGHTLY = join(PROJECT_ROOT, '.ci', 'nightly');

test('.ci/nightly refuses an unknown argument, a flag without its value and a missing baseline (exit 2)', async () => {
  const cases: [string[], RegExp][] = [
    [['--bogus'], /nightly: unknown argument --bogus \(expected --plant/],
    [['--plant'], /nightly: --plant needs a value/],
    [['--baseline', '/nonexistent/runs.csv'], /nightly: no baseline at \/nonexistent\/runs\.csv/],
  ];
  for (const [args, message] of cases) {
    const started = Date.now();
    const { exitCode, stderr } = await execa('bash', [NIGHTLY, ...args], { reject: false, stdin: 'ignore' });
    assert.equal(exitCode, 2, stderr);
    assert.match(stderr, message);
    assert.ok(Date.now() - started < 5000, 'refused before anything runs');
  }
});
