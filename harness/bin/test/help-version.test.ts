// Every command of package.json answers --help and --version at once: exit 0, the answer on stdout,
// nothing started (no folder written, no process left, back within a few seconds).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../paths.ts';
import { runBin } from './cli-process.ts';

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
};

/** The npm scripts whose entry point is a harness/bin/*.ts command (tools aside: another owner's). */
const COMMANDS = [
  ...new Set(
    Object.values(pkg.scripts)
      .flatMap((script) => [...script.matchAll(/node harness\/bin\/([a-z-]+)\.ts/g)].map((m) => m[1] ?? ''))
      .filter((name) => name !== 'tools'),
  ),
];

test('the commands are the package scripts', () => {
  assert.deepEqual([...COMMANDS].sort(), [
    'bench',
    'check',
    'check-runs',
    'cluster',
    'compare',
    'experiment',
    'kind-engine',
    'kind-smoke',
    'local-cluster',
    'report',
    'ztunnel-conformance',
  ]);
});

const version = pkg.version.replace(/\./g, '\\.');

for (const name of COMMANDS) {
  for (const flag of ['--help', '--version']) {
    test(`${name} ${flag}: exit 0, the answer, nothing started`, async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'help-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      // --results-dir makes "nothing written" visible for experiment; the others write in cwd if anywhere.
      const extra = name === 'experiment' ? ['--results-dir', join(dir, 'results')] : [];
      const run = await runBin(name, [...extra, flag], { cwd: dir });
      assert.equal(run.exitCode, 0, run.stderr);
      if (flag === '--help') {
        assert.match(run.stdout, new RegExp(`^Usage: ${name} `, 'm'));
        assert.match(run.stdout, /-V, --version/);
      } else {
        assert.match(run.stdout, new RegExp(`^${name} ${version}( \\(git [0-9a-f]{7,}\\))?$`));
      }
      assert.ok(run.tookMs < 5000, `took ${run.tookMs.toFixed(0)} ms`);
      assert.deepEqual(await readdir(dir), [], 'nothing written');
      assert.equal(run.leftProcess, false, 'no process left');
    });
  }
}

for (const name of ['bench', 'kind-smoke']) {
  test(`${name} refuses arguments it does not take (exit 2) instead of starting`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'help-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    for (const [args, message] of [
      [['--connections', '5'], /unknown option '--connections'/],
      [['now'], /too many arguments/],
    ] as const) {
      const run = await runBin(name, args, { cwd: dir });
      assert.equal(run.exitCode, 2, run.stderr);
      assert.match(run.stderr, message);
      assert.ok(run.tookMs < 5000, `took ${run.tookMs.toFixed(0)} ms`);
      assert.equal(run.leftProcess, false, 'no process left');
    }
    assert.deepEqual(await readdir(dir), [], 'nothing written');
  });
}
