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
