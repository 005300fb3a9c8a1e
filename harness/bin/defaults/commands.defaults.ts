// Every command as the README and --help show it, at its own defaults, end to end: `npm run
// test:defaults` (.ci/run runs it after `npm run check`; about 12 minutes alone on two cores, so it is
// not part of check). Where a command takes a duration and its default is long, the note says which
// shorter form runs; every other option is the command's default. One after another (the runs share
// the machine's two cores), each in a process group of its own, none allowed to leave a process.
// `cluster up` + Ctrl-C is harness/bin/test/cluster-cli.test.ts (in check).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { runBin } from '../test/cli-process.ts';
import { DEFAULT_BACKEND } from '../../../clusters/registry.ts';
import { backendsRunning, CLUSTER_SCENARIOS } from '../../run/scenarios/index.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'defaults-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MINUTES = 60_000;
const results = (): string => join(dir, 'results');

/** A command at its defaults: its exit code, output and time; no process of it left. */
async function run(name: string, args: string[], timeoutMs: number) {
  const ran = await runBin(name, args, { cwd: dir, timeoutMs });
  assert.equal(ran.leftProcess, false, `${name} ${args.join(' ')} left a process`);
  return ran;
}

async function runRows(): Promise<Record<string, string>[]> {
  return parse<Record<string, string>>(await readFile(join(results(), 'runs.csv'), 'utf8'), {
    columns: true,
  });
}

/** The end of a command's output, for an assertion's message. */
const ran = (text: string): string => text.slice(-3000);

/** Every scenario the default backend runs (the gateway's rollout needs kind's Service routing). */
const DEFAULT_BACKEND_SCENARIOS = Object.values(CLUSTER_SCENARIOS)
  .filter((s) => backendsRunning(s).includes(DEFAULT_BACKEND))
  .map((s) => s.name);

for (const scenario of DEFAULT_BACKEND_SCENARIOS)
  test(`experiment --scenario ${scenario} at its defaults: a verdict, not a failure to run`, async () => {
    const before = existsSync(join(results(), 'runs.csv')) ? (await runRows()).length : 0;
    const out = await run('experiment', ['--scenario', scenario, '--results-dir', results()], 6 * MINUTES);
    assert.ok(out.exitCode === 0 || out.exitCode === 1, `exit ${String(out.exitCode)}: ${ran(out.stderr)}`);
    const rows = await runRows();
    assert.equal(rows.length, before + 1);
    const row = rows.at(-1) ?? {};
    assert.equal(row['scenario'], scenario);
    assert.notEqual(row['verdict'], 'aborted');
    assert.ok(Number(row['requests']) > 0, 'requests were counted');
  });

test('calibrate at its defaults (max rate, 100 connections, 60 s): every class exact', async () => {
  const out = await run('experiment', ['calibrate', '--results-dir', join(dir, 'calibrate')], 4 * MINUTES);
  assert.equal(out.exitCode, 0, ran(out.stdout + out.stderr));
  for (const outcome of ['ok', 'http_503', 'refused', 'reset', 'eof', 'timeout'])
    assert.match(out.stdout, new RegExp(`^  ${outcome} +expected +([1-9]\\d*) +got +\\1$`, 'm'), outcome);
  const [runDir = ''] = await readdir(join(dir, 'calibrate'));
  const verdict = JSON.parse(await readFile(join(dir, 'calibrate', runDir, 'verdict.json'), 'utf8')) as {
    verdict: string;
  };
  assert.equal(verdict.verdict, 'pass');
});

test('load-smoke at its defaults with --duration 5 (its default is 60 s)', async () => {
  const out = await run(
    'experiment',
    ['load-smoke', '--duration', '5', '--results-dir', join(dir, 'smoke')],
    MINUTES,
  );
  assert.equal(out.exitCode, 0, ran(out.stdout + out.stderr));
  assert.match(out.stdout, /verdict: pass \(0 requests not OK\)/);
});

test('suite seeds --only E4: its entries and the table', async () => {
  const out = await run(
    'experiment',
    ['suite', 'seeds', '--only', 'E4', '--results-dir', join(dir, 'suite')],
    5 * MINUTES,
  );
  assert.equal(out.exitCode, 0, ran(out.stdout + out.stderr));
  const [suiteDir = ''] = await readdir(join(dir, 'suite'));
  assert.ok(existsSync(join(dir, 'suite', suiteDir, 'suite.md')), 'the table');
});

test('report, check-runs and compare on the runs above', async () => {
  const rows = await runRows();
  const runDirs = (await readdir(results())).filter((name) => name !== 'runs.csv');
  const report = await run(
    'report',
    runDirs.map((d) => join(results(), d)),
    MINUTES,
  );
  assert.equal(report.exitCode, 0, ran(report.stderr));
  for (const d of runDirs) assert.ok(report.stdout.includes(join(results(), d, 'report.html')), d);
  const check = await run(
    'check-runs',
    [join(results(), 'runs.csv'), '--rows', String(rows.length)],
    MINUTES,
  );
  assert.equal(check.exitCode, 0, ran(check.stdout + check.stderr));
  const runsCsv = join(results(), 'runs.csv');
  const compare = await run('compare', [runsCsv, runsCsv], MINUTES);
  assert.equal(compare.exitCode, 0, ran(compare.stdout + compare.stderr));
});

test('tools when everything is provisioned: exit 0, nothing built again', async () => {
  const out = await run('tools', [], 2 * MINUTES);
  assert.equal(out.exitCode, 0, ran(out.stdout + out.stderr));
  assert.doesNotMatch(out.stdout + out.stderr, /building/);
});

test('bench: every figure printed', async () => {
  const out = await run('bench', [], 15 * MINUTES);
  assert.equal(out.exitCode, 0, ran(out.stdout + out.stderr));
  for (const part of ['1. ', '2. ', '3. ', '4. ']) assert.ok(out.stdout.includes(`\n${part}`), part);
});
