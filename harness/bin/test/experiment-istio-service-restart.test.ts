// Istio's TestServiceRestart (istio-service-restart) on the local cluster, both of its predictions
// (issue 61, written down before the runs in docs/findings/2026-11-29-istio-restart-tests.md): with
// Istio's echo server's shutdown (serving until a second passes with no request) no call fails and
// the test's 100 % holds; with go-httpbin's (stop accepting at SIGTERM) the calls that reach a
// terminating pod before ztunnel hears of its removal fail, the 1.28 report's mechanism, and the
// threshold fails. Its traffic is Istio's: one call at a time, a new connection each, 25 a second.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { readRuns } from '../../record/compare/read-runs.ts';
import { PROJECT_ROOT } from '../../paths.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');

/** One run of the scenario (two pods rolled one at a time, from 2 s into 8 s of load). */
async function serviceRestart(dir: string, appShutdown: 'echo' | 'immediate') {
  const args = ['--scenario', 'istio-service-restart', '--app-shutdown', appShutdown];
  const result = await execa(
    process.execPath,
    [CLI, ...args, '--duration', '8', '--restart-at', '2', '--results-dir', dir],
    { reject: false, stdin: 'ignore', timeout: 120_000 },
  );
  const runs = await readRuns(join(dir, 'runs.csv'));
  const run = runs.at(-1);
  assert.ok(run, `${String(result.exitCode)}: ${result.stderr}`);
  assert.equal(run.values['app_shutdown'], appShutdown);
  assert.equal(run.values['max_failed'], '', 'no count budget: the success rate judges');
  const folder = join(dir, run.values['run_id'] ?? '');
  // bursts.csv is written when something failed.
  const burstsCsv = await readFile(join(folder, 'bursts.csv'), 'utf8').catch(() => '');
  const bursts = parse<Record<string, string>>(burstsCsv, { columns: true });
  return { result, run, folder, bursts };
}

test("TestServiceRestart's traffic: go-httpbin's shutdown fails its 100 %, at the terminating pods", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'istio-service-restart-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { result, run, bursts } = await serviceRestart(dir, 'immediate');
  assert.equal(result.exitCode, 1, result.stdout);
  assert.match(result.stdout, /verdict: fail \(\d+ failed of \d+; success_rate>=1: 0\.\d+ FAILED\)/);
  assert.equal(run.values['connections'], '1');
  // Every failure is at a pod the rollout was terminating.
  assert.ok(bursts.length > 0, 'bursts');
  for (const b of bursts) assert.equal(b['mechanism'], 'pod-termination', JSON.stringify(b));
});

test("TestServiceRestart's traffic: with the echo server's shutdown every old pod drains to a quiet second, 100 %", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'istio-service-restart-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { result, folder, bursts } = await serviceRestart(dir, 'echo');
  assert.equal(result.exitCode, 0, result.stdout);
  assert.match(result.stdout, /verdict: pass \(0 failed of \d+; success_rate>=1: 1 ok\)/);
  assert.deepEqual(bursts, [], 'no failure');
  // Every pod drained and ended by a quiet second: the rollout's two old pods while the load ran
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
  assert.ok(drained >= 2, `${String(drained)} pods drained: the rollout's two at least`);
});
