import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, formatFields } from './log.ts';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0, 123);

test('text lines carry time, level, component, message and quoted fields', () => {
  const lines: string[] = [];
  const log = createLogger({ component: 'ztunnel', write: (l) => lines.push(l), wallNow: () => T0 });
  log.info('connection complete', { 'src.addr': '127.1.0.5:40000', error: 'connection failed: x' });
  assert.deepEqual(lines, [
    '2026-11-21T12:00:00.123Z info  ztunnel connection complete src.addr=127.1.0.5:40000 ' +
      'error="connection failed: x"',
  ]);
});

test('level filters lines below it; child loggers add bound fields', () => {
  const lines: string[] = [];
  const log = createLogger({ component: 'h', level: 'warn', write: (l) => lines.push(l), wallNow: () => T0 });
  log.info('dropped');
  log.child({ node: 'node-1' }).warn('kept', { n: 3 });
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /warn {2}h kept node=node-1 n=3$/);
});

test('json format emits one parseable object per line', () => {
  const lines: string[] = [];
  const log = createLogger({
    component: 'k6',
    format: 'json',
    write: (l) => lines.push(l),
    wallNow: () => T0,
  });
  log.error('failed', { code: 1212 });
  assert.deepEqual(JSON.parse(lines[0] ?? ''), {
    time: '2026-11-21T12:00:00.123Z',
    level: 'error',
    component: 'k6',
    msg: 'failed',
    code: 1212,
  });
});

test('formatFields skips undefined and quotes empty strings and errors', () => {
  assert.equal(formatFields({ a: undefined, b: '', c: new Error('boom') }), ' b="" c="boom"');
});

test("istio format is ztunnel's own: tabs, lower-case level, target from scope, Debug-quoted strings", () => {
  const lines: string[] = [];
  const log = createLogger({
    component: 'ztunnel',
    format: 'istio',
    write: (l) => lines.push(l),
    wallNow: () => 0,
  });
  log.child({ scope: 'access' }).error('connection complete', {
    'src.addr': '10.0.0.1:4321',
    'src.identity': 'spiffe://cluster.local/ns/default/sa/gw',
    'dst.hbone_addr': '10.0.0.2:8080',
    bytes_sent: 12,
    duration: '3ms',
    error: 'connection closed due to connection drain',
    unset: undefined,
  });
  log.info('ready');
  assert.deepEqual(lines, [
    '1970-01-01T00:00:00.000000Z\terror\taccess\tconnection complete\tsrc.addr=10.0.0.1:4321 src.identity="spiffe://cluster.local/ns/default/sa/gw" dst.hbone_addr=10.0.0.2:8080 bytes_sent=12 duration="3ms" error="connection closed due to connection drain"',
    '1970-01-01T00:00:00.000000Z\tinfo\tztunnel\tready',
  ]);
});
