// E2 with --app-shutdown echo on the local cluster (issue 61): the workload drains as Istio's echo
// server does (serving until a second passes with no request), so no request meets a closed listener
// at a terminating pod, as TestServiceRestart's 100 % relies on. Predicted before it ran: no failure
// through ztunnel, every old pod's drain ended by a quiet second (docs/findings/2026-11-29-app-shutdown.md).
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { readRuns } from '../../record/compare/read-runs.ts';
import { checkShape } from '../../record/run-shape.ts';
import { PROJECT_ROOT } from '../../paths.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');

test("E2 with the echo server's shutdown: every old pod drains until a quiet second, nothing fails through ztunnel", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'app-shutdown-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const args = ['--scenario', 'workload-rollout', '--app-shutdown', 'echo', '--qps', '50', '-c', '10'];
  const result = await execa(
    process.execPath,
    [CLI, ...args, '--duration', '8', '--restart-at', '2', '--results-dir', dir],
    { reject: false, stdin: 'ignore', timeout: 120_000 },
  );
  assert.ok(result.exitCode === 0 || result.exitCode === 1, `${String(result.exitCode)}: ${result.stderr}`);
  const [run] = await readRuns(join(dir, 'runs.csv'));
  assert.ok(run);
  assert.equal(run.values['app_shutdown'], 'echo');
  const folder = join(dir, run.values['run_id'] ?? '');
  assert.deepEqual(await checkShape('no-ztunnel-failure', run, folder), []);
  // bursts.csv is written when something failed.
  const burstsCsv = await readFile(join(folder, 'bursts.csv'), 'utf8').catch(() => '');
  const bursts = parse<Record<string, string>>(burstsCsv, { columns: true });
  assert.deepEqual(
    bursts.filter((b) => b['mechanism'] === 'pod-termination'),
    [],
    'no failure at a terminating pod',
  );
  // Every pod drained and ended by a quiet second: the rollout's three old pods while the load ran
  // (their last request came after SIGTERM), the new ones at the teardown.
  const logs = (await readdir(join(folder, 'pods'))).filter((f) =>
    /^default_httpbin-.*_httpbin\.log$/.test(f),
  );
  let drained = 0;
  for (const file of logs) {
    const log = await readFile(join(folder, 'pods', file), 'utf8');
    if (!log.includes("draining as Istio's echo does")) continue;
    assert.match(log, /drain over, shutting down\b.*\bend=quiet\b/, file);
    drained++;
  }
  assert.ok(drained >= 3, `${String(drained)} pods drained: the rollout's three at least`);
});
