// Bad input to the real experiment CLI: exit 2 within seconds, the option named, nothing written,
// no process left. The bulk of the fuzz runs in process (harness/cli/experiment-args.test.ts); these
// few prove the same through a real process, issue 31's /proc results folder first.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runBin } from './cli-process.ts';

const CASES: [args: string[], named: string][] = [
  [['--results-dir', '/proc/nonexistent/results'], '--results-dir'],
  [['--k6-out', 'json=/proc/nonexistent/k6.json'], '--k6-out'],
  [['--duration', '60x'], '--duration'],
  [['--grace', '-1s'], '--grace'],
  [['--connections', '1e999'], '--connections'],
  [['--restart-at', 'NaN'], '--restart-at'],
  [['--netns=yes'], '--netns'],
];

for (const [args, named] of CASES) {
  test(`${args.join(' ')}: exit 2 in under 5 s naming ${named}, nothing written, no process left`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'bad-input-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const run = await runBin('experiment', ['--results-dir', join(dir, 'results'), ...args], { cwd: dir });
    assert.equal(run.exitCode, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`(Expected |unknown option ')${named}`));
    assert.ok(run.tookMs < 5000, `took ${run.tookMs.toFixed(0)} ms`);
    assert.deepEqual(await readdir(dir), [], 'nothing written');
    assert.equal(run.leftProcess, false, 'no process left');
  });
}
