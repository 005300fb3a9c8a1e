// Real fortio against a real local HTTP server: what the harness reads back from fortio's access log
// must equal, per status, what the server itself answered and what fortio's own JSON result counts;
// a refused port must come back as `refused` from fortio's error log (its access log only says -1).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { chooseGenerator } from '../../provision/index.ts';
import type { NoResponseKind } from '../k6-records.ts';
import { runLoad } from '../run-load.ts';
import { startStatusServer } from './status-server.ts';

// Nothing listens on this address (127.0.0.0/8 is all loopback): connecting is refused at once.
const REFUSED_URL = 'http://127.211.0.1:9/';

test(
  'fixed-rate fortio load: exact counts by status, refused told from the error log',
  { timeout: 120_000 },
  async (t) => {
    const fortio = await chooseGenerator('fortio');
    const { base, answered } = await startStatusServer(t);
    const workDir = await mkdtemp(join(tmpdir(), 'fortio-fixed-rate-'));
    t.after(() => rm(workDir, { recursive: true, force: true }));

    const statuses = new Map<number, number>();
    const result = await runLoad({
      generator: fortio,
      workDir: join(workDir, 'a'),
      onRecord: (r) => statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1),
      spec: { targets: [`${base}/status/503`], qps: 200, connections: 10, durationS: 2, timeoutS: 2 },
    });
    // fortio plans qps x duration calls, split over its connections, plus one warm-up call each.
    assert.equal(result.summary.httpReqs, 400);
    assert.deepEqual(Object.fromEntries(statuses), { 503: 400 });
    assert.equal(answered.get(503), 400 + 10, 'the server saw every call and the 10 warm-ups');
    const spanMs = result.counts.lastEndWallMs - result.counts.firstStartWallMs;
    assert.ok(spanMs > 1800 && spanMs < 3000, `requests spanned ${String(spanMs)} ms`);
    assert.match(result.ownSummary ?? '', /^Code 503 : 400 \(100\.0 %\)$/m);
    assert.match(result.ownSummary ?? '', /^All done 400 calls \(plus 10 warmup\)/m);
    const json = JSON.parse(await readFile(result.files.fortioJsonPath ?? '', 'utf8')) as {
      RetCodes: Record<string, number>;
    };
    assert.deepEqual(json.RetCodes, { 503: 400 });

    // Two targets: one fortio each, at half the rate and half the connections, each counted apart.
    answered.clear();
    const both = await runLoad({
      generator: fortio,
      workDir: join(workDir, 'two'),
      spec: {
        targets: [`${base}/status/200`, `${base}/status/503`],
        qps: 100,
        connections: 4,
        durationS: 1,
        timeoutS: 2,
      },
    });
    assert.deepEqual(both.summary.perTarget, [50, 50]);
    assert.deepEqual(Object.fromEntries(both.counts.byStatus), { 200: 50, 503: 50 });
    assert.deepEqual(Object.fromEntries(answered), { 200: 52, 503: 52 }, 'and two warm-up calls each');

    const kinds = new Map<NoResponseKind | undefined, number>();
    const refused = await runLoad({
      generator: fortio,
      workDir: join(workDir, 'b'),
      onRecord: (r) => kinds.set(r.noResponse, (kinds.get(r.noResponse) ?? 0) + 1),
      spec: { targets: [REFUSED_URL], qps: 50, connections: 5, durationS: 1, timeoutS: 1 },
    });
    assert.equal(refused.summary.httpReqs, 50);
    assert.deepEqual(Object.fromEntries(kinds), { refused: 50 });
  },
);

test(
  'one fortio of several fails: the others are stopped at once and the failure names it',
  { timeout: 60_000 },
  async (t) => {
    const fortio = await chooseGenerator('fortio');
    const { base } = await startStatusServer(t);
    const workDir = await mkdtemp(join(tmpdir(), 'fortio-sibling-'));
    t.after(() => rm(workDir, { recursive: true, force: true }));
    const pids: number[] = [];
    const startedMs = Date.now();
    await assert.rejects(
      runLoad({
        generator: fortio,
        workDir,
        onSpawn: (pid) => pids.push(pid),
        // fortio exits 1 at once on a port it cannot parse; the first would run for 30 s.
        spec: {
          targets: [`${base}/status/418`, 'http://127.0.0.1:99999/'],
          qps: 10,
          connections: 2,
          durationS: 30,
          timeoutS: 1,
        },
      }),
      /fortio 2 of 2 \(http:\/\/127\.0\.0\.1:99999\/\) failed, so the others were stopped: fortio exited with code 1/,
    );
    assert.ok(Date.now() - startedMs < 10_000, `stopped after ${String(Date.now() - startedMs)} ms`);
    assert.equal(pids.length, 2);
    for (const pid of pids)
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `fortio ${String(pid)} is gone`);
  },
);

test(
  "a refused port at full speed: every call counted as refused, fortio's log a few kilobytes",
  { timeout: 60_000 },
  async (t) => {
    const fortio = await chooseGenerator('fortio');
    const workDir = await mkdtemp(join(tmpdir(), 'fortio-flood-'));
    t.after(() => rm(workDir, { recursive: true, force: true }));
    const kinds = new Map<string, number>();
    const result = await runLoad({
      generator: fortio,
      workDir,
      onRecord: (r) =>
        kinds.set(r.noResponse ?? String(r.status), (kinds.get(r.noResponse ?? String(r.status)) ?? 0) + 1),
      spec: { targets: [REFUSED_URL], qps: 0, connections: 4, durationS: 2, timeoutS: 1 },
    });
    const calls = result.summary.httpReqs;
    assert.ok(calls > 1000, `${String(calls)} calls: a flood`);
    assert.deepEqual(Object.fromEntries(kinds), { refused: calls });
    const log = await readFile(result.files.logPath, 'utf8');
    assert.ok(log.length < 50_000, `fortio.log is ${String(log.length)} bytes`);
    const closing = log
      .split('\n')
      .filter((line) => line.includes('"left_out"'))
      .map((line) => JSON.parse(line) as { left_out: number; kept: number; shape: string });
    assert.equal(closing.length, 1, 'one shape left out');
    // Every call's line and each connection's warm-up: fortio logs one line per attempt.
    assert.equal((closing[0]?.left_out ?? 0) + (closing[0]?.kept ?? 0), calls + 4);
    assert.match(
      closing[0]?.shape ?? '',
      /Unable to connect: dial tcp 127\.211\.0\.1:9: connect: connection refused/,
    );
  },
);

test(
  'a relative work folder (a relative --results-dir): fortio finds its files',
  { timeout: 60_000 },
  async (t) => {
    const fortio = await chooseGenerator('fortio');
    const { base } = await startStatusServer(t);
    const dir = await mkdtemp(join(tmpdir(), 'fortio-relative-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const result = await runLoad({
      generator: fortio,
      workDir: relative(process.cwd(), join(dir, 'run')),
      spec: { targets: [`${base}/status/418`], qps: 20, connections: 2, durationS: 1, timeoutS: 1 },
    });
    assert.equal(result.summary.httpReqs, 20);
    assert.equal(result.counts.total, 20);
  },
);
