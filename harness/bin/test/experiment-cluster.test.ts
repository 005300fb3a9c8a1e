// `npm run experiment` on the local cluster as a user meets it: a real process, the result files,
// the exact reconciliation of counts, and Ctrl-C leaving an aborted run folder and no process.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { OUTCOME_CLASSES } from '../../tally/index.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import { childPids, describeAlive, untilLoadStarts } from '../../../lib/test/processes.ts';
import { GENERATORS } from '../../load/test/generators.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');
type Row = Record<string, string>;
/** A run long enough to be interrupted during its load. */
const SLOW_RUN_ARGS = ['--scenario', 'workload-rollout', '--qps', '20', '-c', '5', '--duration', '30'];

async function readRows(path: string): Promise<Row[]> {
  return parse<Row>(await readFile(path, 'utf8'), { columns: true });
}

for (const generator of GENERATORS)
  test(
    `workload-rollout at 50 RPS: summary, timeline and events reconcile with ${generator.kind}`,
    { skip: generator.skip },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'experiment-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const args = [
        '--generator',
        generator.kind,
        '--scenario',
        'workload-rollout',
        '--qps',
        '50',
        '-c',
        '10',
        '--duration',
        '8',
        '--restart-at',
        '2',
        // One threshold that holds and one that cannot (no request is that fast): the verdict fails
        // and names it.
        '--threshold',
        'requests>=300',
        '--threshold',
        'p50_ms<0.0001',
        '--results-dir',
        dir,
      ];
      const jobSummary = join(dir, 'job-summary.md');
      const result = await execa(process.execPath, [CLI, ...args], {
        reject: false,
        stdin: 'ignore',
        timeout: 120_000,
        env: { GITHUB_STEP_SUMMARY: jobSummary },
      });
      assert.match(result.stdout, /^Code 418 : \d+ \(\d+\.\d %\)$/m);
      // fortio's own closing line (k6's records give the same line, with no warm-up calls).
      assert.match(result.stdout, /^All done \d+ calls \(plus \d+ warmup\) [\d.]+ ms avg, [\d.]+ qps$/m);
      const [runs] = [await readRows(join(dir, 'runs.csv'))];
      assert.equal(runs.length, 1);
      const row = runs[0] ?? {};
      const runDir = join(dir, row['run_id'] ?? '');
      assert.deepEqual(await readRows(join(runDir, 'summary.csv')), runs);
      const requests = Number(row['requests']);
      assert.ok(
        requests >= 390 && requests <= 410,
        `~400 requests at 50 RPS for 8 s, got ${String(requests)}`,
      );
      assert.equal(Number(row['generator_requests']), requests);
      assert.equal(row['generator'], generator.kind);
      const columns = ['ok', 'http_503', 'other_5xx', 'refused', 'reset', 'eof', 'timeout', 'other'];
      assert.equal(
        columns.reduce((n, c) => n + Number(row[c]), 0),
        requests,
        'classes add up to the requests',
      );
      const timeline = await readRows(join(runDir, 'timeline.csv'));
      assert.equal(
        timeline.reduce((n, r) => n + OUTCOME_CLASSES.reduce((m, c) => m + Number(r[c]), 0), 0),
        requests,
      );
      const failed = requests - Number(row['ok']);
      assert.equal(row['verdict'], 'fail');
      assert.equal(result.exitCode, 1);
      assert.match(
        row['reason'] ?? '',
        new RegExp(
          `^${String(failed)} failed (<=|>) 0; requests>=300: ${String(requests)} ok; p50_ms<0.0001: [\\d.]+ FAILED$`,
        ),
      );
      assert.equal(row['timing_pushLatencyMs'], '250');
      // The report's lag, each terminating pod's exit to the modelled push of its removal: measured,
      // and the longest no shorter than the median.
      const lag = Number(row['removal_lag_ms']);
      assert.ok(lag > 0 && Number(row['removal_lag_max_ms']) >= lag, `removal lag ${String(lag)} ms`);
      // The mitigation arms are recorded, at their defaults here.
      assert.equal(row['drain_strategy'], 'none');
      assert.equal(row['prestop_sleep_s'], '0');
      assert.match(row['retry_on'] ?? '', /^connect-failure,refused-stream,/);
      // CI output: a JUnit case per threshold (the failing one failed), the job summary's table.
      const junit = await readFile(join(runDir, 'junit.xml'), 'utf8');
      assert.match(junit, /<testsuites tests="3" failures="\d" errors="0">/);
      assert.match(
        junit,
        /<testcase classname="ztunnel-harness.workload-rollout" name="p50_ms&lt;0.0001">\s*<failure message="p50_ms = /,
      );
      assert.match(
        junit,
        /<testcase classname="ztunnel-harness.workload-rollout" name="requests>=300">\s*<system-out>/,
      );
      const summaryMd = await readFile(jobSummary, 'utf8');
      assert.match(summaryMd, /^### workload-rollout: fail$/m);
      assert.match(summaryMd, /^\| p50_ms<0.0001 +\| [\d.]+ +\| \*\*no\*\* +\|$/m);
      // metrics.om: ztunnel's and the gateway's metrics scraped during the load (the gateway's summed
      // over its worker processes).
      const om = await readFile(join(runDir, 'metrics.om'), 'utf8');
      assert.match(om, /^istio_tcp_connections_opened_total\{reporter="destination",.*job="ztunnel",/m);
      assert.match(
        om,
        // Envoy's own stats, with Istio's cluster_name tag (the whole outbound cluster name).
        /^envoy_cluster_upstream_rq_total\{cluster_name="outbound\|8000\|\|httpbin\.default\.svc\.cluster\.local",job="gateway",instance="[\d.]+:15090",pod="istio-system\/istio-ingressgateway-[^"]+"\} \d+ \d+\.\d{3}$/m,
      );
      assert.ok(om.endsWith('# EOF\n'));
      // fortio.json: fortio's result shape, every request in its histogram and return codes, and its
      // median within one of its buckets of the tally's (the same durations, sub-millisecond).
      const fortio = JSON.parse(await readFile(join(runDir, 'fortio.json'), 'utf8')) as {
        RequestedQPS: string;
        RetCodes: Record<string, number>;
        DurationHistogram: {
          Count: number;
          Data: { Start: number; End: number }[];
          Percentiles: { Percentile: number; Value: number }[];
        };
      };
      assert.equal(fortio.RequestedQPS, '50');
      assert.equal(fortio.DurationHistogram.Count, requests);
      assert.equal(
        Object.values(fortio.RetCodes).reduce((a, b) => a + b, 0),
        requests,
      );
      const p50 = fortio.DurationHistogram.Percentiles.find((p) => p.Percentile === 50)?.Value ?? NaN;
      const bucket = fortio.DurationHistogram.Data.find((b) => p50 >= b.Start && p50 <= b.End);
      assert.ok(bucket, `p50 ${String(p50)} s in a bucket`);
      const tallyP50 = Number(row['p50_ms']) / 1000;
      const width = bucket.End - bucket.Start;
      assert.ok(
        Math.abs(tallyP50 - p50) <= width,
        `tally p50 ${String(tallyP50)} s vs fortio's ${String(p50)} s`,
      );
      assert.match(result.stdout, /^# target 50% [\d.e-]+$/m);
      // The generator's own per-request records, durations to the microsecond.
      if (row['generator'] === 'k6')
        assert.match(await readFile(join(runDir, 'k6', 'requests.csv'), 'utf8'), /^\d+,\d+\.\d{3},418,/m);
      else
        assert.match(
          await readFile(join(runDir, 'fortio', 'access.jsonl'), 'utf8'),
          /^\{"latency":\d+\.\d{6},"timestamp":\d+,"thread":\d+,"iter":\d+,"ok":true,"details":"418"\}$/m,
        );
      // The report is drawn for every run (its rendering is tested in harness/record/report/test).
      assert.match(await readFile(join(runDir, 'report.html'), 'utf8'), /<svg[^>]*class="marks"/);
      const events = await readRows(join(runDir, 'events.csv'));
      const deleted = events.filter(
        (e) => e['kind'] === 'pod-deleting' && e['object']?.startsWith('default/httpbin'),
      );
      assert.equal(deleted.length, 3, 'three old pods deleted');
      for (const kind of ['sigterm', 'del-workload', 'pod-removed', 'workload-unhealthy-pushed'])
        assert.equal(
          events.filter((e) => e['kind'] === kind && deleted.some((d) => d['object'] === e['object'])).length,
          3,
          kind,
        );
      assert.ok(
        Number(row['rollout_status_complete_s']) > 2 &&
          Number(row['rollout_old_pods_gone_s']) >= Number(row['rollout_status_complete_s']),
      );
    },
  );

for (const generator of GENERATORS)
  test(
    `SIGINT during the load (${generator.kind}): exit 130, the run folder is kept as aborted, no process left`,
    { skip: generator.skip },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'experiment-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const child = execa(
        process.execPath,
        [CLI, ...SLOW_RUN_ARGS, '--generator', generator.kind, '--results-dir', dir],
        {
          reject: false,
          stdin: 'ignore',
          timeout: 60_000,
        },
      );
      await untilLoadStarts(child);
      const pids = await childPids(child.pid ?? -1);
      assert.ok(pids.length >= 6, `cluster processes and k6 running: ${String(pids.length)}`);
      const stoppedAt = performance.now();
      child.kill('SIGINT');
      const result = await child;
      assert.ok(performance.now() - stoppedAt < 5000, 'everything stopped within 5 s');
      assert.equal(result.exitCode, 130, result.stderr);
      const [row] = await readRows(join(dir, 'runs.csv'));
      assert.ok(row);
      assert.equal(row['verdict'], 'aborted');
      assert.match(row['reason'] ?? '', /interrupted by SIGINT/);
      assert.ok(existsSync(join(dir, row['run_id'] ?? '', 'events.csv')));
      const described = await describeAlive(pids);
      assert.deepEqual(described, []);
    },
  );

test('an uncaught error in the harness process: exit 3 (could not run), the run kept as aborted naming it, no process left', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'experiment-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const fixture = pathToFileURL(
    join(PROJECT_ROOT, 'harness', 'bin', 'test', 'fixtures', 'crash-after.ts'),
  ).href;
  const child = execa(process.execPath, ['--import', fixture, CLI, ...SLOW_RUN_ARGS, '--results-dir', dir], {
    reject: false,
    stdin: 'ignore',
    timeout: 90_000,
    env: { CRASH_AFTER_MS: '9000' },
  });
  let pids: number[] = [];
  // Sample the cluster's processes while it runs, to check afterwards that none is left.
  const sampler = setInterval(() => {
    void childPids(child.pid ?? -1).then((now) => {
      pids = [...new Set([...pids, ...now])];
    });
  }, 500);
  const result = await child;
  clearInterval(sampler);
  assert.ok(pids.length >= 6, `cluster processes seen: ${String(pids.length)}`);
  assert.equal(result.exitCode, 3, result.stderr);
  assert.match(result.stderr, /uncaught exception in the harness process: Error: injected crash/);
  const [row] = await readRows(join(dir, 'runs.csv'));
  assert.ok(row);
  assert.equal(row['verdict'], 'aborted');
  assert.match(row['reason'] ?? '', /uncaught error in the harness process: Error: injected crash/);
  assert.ok(existsSync(join(dir, row['run_id'] ?? '', 'events.csv')));
  assert.deepEqual(await describeAlive(pids), []);
});

test('--repeat 2 runs twice on fresh clusters, one runs.csv row each, and prints min/median/max', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'experiment-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const args = [
    '--scenario',
    'workload-rollout',
    '--qps',
    '20',
    '-c',
    '4',
    '--duration',
    '3',
    '--restart-at',
    'none',
    '--repeat',
    '2',
    '--results-dir',
    dir,
  ];
  const result = await execa(process.execPath, [CLI, ...args], {
    reject: false,
    stdin: 'ignore',
    timeout: 120_000,
  });
  assert.equal(result.exitCode, 0, result.stderr);
  const runs = await readRows(join(dir, 'runs.csv'));
  assert.equal(runs.length, 2);
  assert.notEqual(runs[0]?.['run_id'], runs[1]?.['run_id']);
  assert.ok(runs.every((r) => r['restart_at_s'] === 'none' && r['rollout_started_s'] === ''));
  assert.match(result.stdout, /^503s: min 0 \/ median 0 \/ max 0; failed: min 0 \/ median 0 \/ max 0$/m);
});
