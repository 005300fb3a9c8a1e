import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KEEP_PER_SHAPE, createFortioLog, shapeOf } from './fortio-log.ts';

const T0 = 1_795_520_420; // s
const refused = (thread: number, ts: number): string =>
  JSON.stringify({
    ts,
    level: 'err',
    r: 21,
    file: 'http_client.go',
    line: 951,
    msg: 'Unable to connect',
    dest: { IP: '127.0.0.1', Port: 9, Zone: '' },
    err: 'dial tcp 127.0.0.1:9: connect: connection refused',
    numfd: 12,
    thread,
    run: 0,
  });

test('a flood of one line is kept 20 times and counted; every error line is still held for the records', () => {
  const log = createFortioLog();
  const kept: string[] = [];
  const keep = (line: string): void => {
    const out = log.add(line);
    if (out !== undefined) kept.push(out);
  };
  keep('Fortio 1.66.0 running at 0 queries per second, 2->2 procs, for 1s: http://127.0.0.1:9/');
  for (let i = 0; i < 10_000; i++) keep(refused(i % 3, T0 + i / 1e4));
  keep(
    JSON.stringify({
      ts: T0 + 2,
      level: 'info',
      msg: 'Closing dead socket (err at first read)',
      err: 'read tcp 127.0.0.1:5->127.0.0.1:6: read: connection reset by peer',
      thread: 1,
    }),
  );
  keep('All done 10000 calls (plus 3 warmup) 0.1 ms avg, 10000.0 qps');
  assert.equal(kept.length, 1 + KEEP_PER_SHAPE + 1 + 1);
  const [closing, ...more] = log.end();
  assert.equal(more.length, 0, 'one shape was left out');
  const summary = JSON.parse(closing ?? '{}') as Record<string, unknown>;
  assert.equal(summary['left_out'], 10_000 - KEEP_PER_SHAPE);
  assert.equal(summary['first_ts'], T0 + KEEP_PER_SHAPE / 1e4);
  assert.equal(summary['last_ts'], T0 + 9999 / 1e4);
  assert.equal(log.errors.size, 10_000);
  assert.deepEqual([...log.retried], [['reset', 1]]);
  assert.match(log.text(), /^All done 10000 calls/m);
  // The 100th error line of thread 1 is found in its own window.
  const at = (T0 + 298 / 1e4) * 1000;
  assert.equal(log.errors.take(1, at - 1, 2)?.kind, 'refused');
});

test("a line's shape masks what changes per call (the local port), not what tells lines apart", () => {
  const reset = (port: number): string =>
    `read tcp 127.0.0.1:${String(port)}->127.0.0.1:8080: read: connection reset by peer`;
  assert.equal(
    shapeOf({ level: 'err', msg: 'Read error' }, reset(41234)),
    shapeOf({ level: 'err', msg: 'Read error' }, reset(50001)),
  );
  assert.notEqual(
    shapeOf({ level: 'warn', msg: 'Non ok http code', code: 503 }, ''),
    shapeOf({ level: 'warn', msg: 'Non ok http code', code: 502 }, ''),
  );
});
