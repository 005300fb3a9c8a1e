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
  [['--path', '/status/418 HTTP/1.1'], '--path'],
  [['suite', 'seeds', '--only', 'E9'], '--only'],
];

for (const [args, named] of CASES) {
  test(`${args.join(' ')}: exit 2 in under 5 s naming ${named}, nothing written, no process left`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'bad-input-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    // A command's words first (suite seeds), then the results folder, then the options under test.
    const words = args.slice(
      0,
      Math.max(
        0,
        args.findIndex((a) => a.startsWith('-')),
      ),
    );
    const argv = [...words, '--results-dir', join(dir, 'results'), ...args.slice(words.length)];
    const run = await runBin('experiment', argv, { cwd: dir });
    assert.equal(run.exitCode, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`(Expected |unknown option ')${named}`));
    assert.ok(run.tookMs < 5000, `took ${run.tookMs.toFixed(0)} ms`);
    assert.deepEqual(await readdir(dir), [], 'nothing written');
    assert.equal(run.leftProcess, false, 'no process left');
  });
}
