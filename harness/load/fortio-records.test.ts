import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fortioOwnSummary } from './fortio-output.ts';
import { fortioArgs } from './run-fortio.ts';
import { readFortioRecords } from './fortio-records.ts';
import { readFortioLog } from './fortio-log.ts';
import type { RequestRecord } from './k6-records.ts';

const T0 = 1_795_520_420_000; // ms
const access = (thread: number, startMs: number, latencyS: number, details: string): string =>
  JSON.stringify({
    latency: latencyS,
    timestamp: startMs * 1e6,
    thread,
    iter: 0,
    ok: details === '418',
    details,
  });
const errorLine = (thread: number, atMs: number, msg: string, err: string): string =>
  JSON.stringify({
    ts: atMs / 1000,
    level: 'err',
    r: 21,
    file: 'http_client.go',
    line: 951,
    msg,
    err,
    thread,
    run: 0,
  });

test("-1 calls get their kind from fortio's error line of the same thread and time; warm-up lines do not match", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fortio-records-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const accessLogPath = join(dir, 'access.jsonl');
  await writeFile(
    accessLogPath,
    [
      access(0, T0 + 10, 0.0004, '418'),
      access(1, T0 + 11, 0.002, '-1'),
      access(0, T0 + 20, 0.001, '-1'),
      access(1, T0 + 30, 0.5, '-1'),
      access(0, T0 + 40, 0.0003, '503'),
      access(2, T0 + 50, 0.001, '-1'),
    ].join('\n') + '\n',
  );
  const log = readFortioLog(
    [
      errorLine(1, T0 - 100, 'Unable to connect', 'dial tcp 127.0.0.1:1: connect: connection refused'), // warm-up
      'Fortio 1.66.0 running at 0 queries per second',
      errorLine(
        1,
        T0 + 12,
        'Read error',
        'read tcp 127.0.0.1:5->127.0.0.1:6: read: connection reset by peer',
      ),
      errorLine(0, T0 + 20.5, 'Unable to connect', 'dial tcp 127.0.0.1:1: connect: connection refused'),
      errorLine(1, T0 + 530, 'Timeout error (incomplete/invalid response)', 'read tcp: i/o timeout'),
    ].join('\n'),
  );
  const records: RequestRecord[] = [];
  assert.equal(await readFortioRecords(accessLogPath, log.errors, (r) => records.push(r)), 6);
  assert.deepEqual(
    records.map((r) => [r.status, r.noResponse ?? '']),
    [
      [418, ''],
      [0, 'reset'],
      [0, 'refused'],
      [0, 'timeout'],
      [503, ''],
      [0, 'other'],
    ],
  );
  // fortio's ns timestamps exceed a double's integer range: microseconds survive, not nanoseconds.
  assert.ok(Math.abs((records[0]?.startWallMs ?? 0) - (T0 + 10)) < 0.001);
  assert.equal(records[0]?.durationMs, 0.4);
  assert.match(records[5]?.error ?? '', /no error line found/);
});

test("fortio's own summary keeps its closing lines and drops the histogram rows and log lines", () => {
  const stderr = [
    '{"ts":1,"level":"info","msg":"Starting"}',
    'Ended after 2.000258316s : 59407 calls. qps=29700',
    'Aggregated Function Time : count 59407 avg 0.00013059009 +/- 0.0001872 min 2.2183e-05 max 0.005879475 sum 7.75796573',
    '# range, mid point, percentile, count',
    '>= 2.2183e-05 <= 0.001 , 0.000511092 , 99.47, 59095',
    '# target 50% 0.000513665',
    '# target 99% 0.000995333',
    'Error cases : no data',
    '[0]   1 socket used, resolved to 127.0.0.1:18089, connection timing : count 1',
    'Connection time histogram (s) : count 4 avg 0.0005643275',
    '# target 50% 0.000364009',
    'Sockets used: 4 (for perfect keepalive, would be 4)',
    'Code 418 : 59407 (100.0 %)',
    'All done 59407 calls (plus 4 warmup) 0.131 ms avg, 29699.7 qps',
  ].join('\n');
  assert.deepEqual(fortioOwnSummary(stderr).split('\n'), [
    'Ended after 2.000258316s : 59407 calls. qps=29700',
    'Aggregated Function Time : count 59407 avg 0.00013059009 +/- 0.0001872 min 2.2183e-05 max 0.005879475 sum 7.75796573',
    '# target 50% 0.000513665',
    '# target 99% 0.000995333',
    'Error cases : no data',
    'Sockets used: 4 (for perfect keepalive, would be 4)',
    'Code 418 : 59407 (100.0 %)',
    'All done 59407 calls (plus 4 warmup) 0.131 ms avg, 29699.7 qps',
  ]);
});

test('fortio runs as the documents ran it: -qps -c -t -timeout, -uniform only at a fixed rate, -n for exact calls', () => {
  const files = { accessLogPath: '/r/access.jsonl', jsonPath: '/r/fortio.json', logPath: '/r/fortio.log' };
  const spec = { targets: ['http://gw/status/418'], qps: 0, connections: 1000, durationS: 60, timeoutS: 10 };
  assert.deepEqual(fortioArgs(spec, files), [
    'load',
    '-qps',
    '0',
    '-c',
    '1000',
    '-t',
    '60s',
    '-timeout',
    '10s',
    '-allow-initial-errors',
    '-access-log-file',
    '/r/access.jsonl',
    '-access-log-format',
    'json',
    '-json',
    '/r/fortio.json',
    'http://gw/status/418',
  ]);
  const fixed = fortioArgs({ ...spec, qps: 50, connections: 100 }, files);
  assert.ok(fixed.includes('-uniform'));
  // Istio's traffic generator: one call at a time on a new connection, never catching up.
  const istio = fortioArgs(
    { ...spec, qps: 25, connections: 1, newConnectionPerRequest: true, noCatchUp: true },
    files,
  );
  assert.ok(istio.includes('-keepalive=false') && istio.includes('-nocatchup'), istio.join(' '));
  assert.ok(!fixed.includes('-nocatchup') && !fixed.includes('-keepalive=false'));
  const one = fortioArgs({ ...spec, exactCalls: 1, timeoutS: 30 }, files);
  assert.deepEqual(one.slice(one.indexOf('-n'), one.indexOf('-n') + 2), ['-n', '1']);
  assert.ok(!one.includes('-t'), 'no duration with exact calls');
  assert.throws(
    () => fortioArgs({ ...spec, targets: ['http://a/', 'http://b/'] }, files),
    /fortio takes one URL/,
  );
  assert.throws(() => fortioArgs({ ...spec, outputs: ['json=k6.json'] }, files), /--generator k6/);
});
