import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { parseDurationSeconds } from './duration.ts';
import { numberParser, restartAtParser } from './parse-values.ts';

// Go's time.ParseDuration forms (src/time/time_test.go's parseDurationTests), in seconds, and a bare
// number as seconds.
const GOOD: [string, number][] = [
  ['60', 60],
  ['0', 0],
  ['0.5', 0.5],
  ['.5', 0.5],
  ['60s', 60],
  ['2m', 120],
  ['500ms', 0.5],
  ['1h', 3600],
  ['1m30s', 90],
  ['1h2m3s', 3723],
  ['1.5h', 5400],
  ['1.s', 1],
  ['.5m', 30],
  ['100us', 0.0001],
  ['100µs', 0.0001],
  ['100μs', 0.0001],
  ['1500000ns', 0.0015],
  ['300ms', 0.3],
  ['1m0.1s', 60.1],
  ['+5s', 5],
  ['-1s', -1], // parsed, then refused by the range (below)
  ['1s1m', 61], // Go sums components in any order
];

const BAD = [
  '',
  ' ',
  '60x',
  '60sec',
  '60 s',
  '60S',
  '1d',
  's',
  '.s',
  '1e3',
  '0x10',
  'NaN',
  'Infinity',
  '1m30',
  '1.5.5s',
  '--1s',
  'true',
  '{}',
];

test('Go durations and bare seconds: the table', () => {
  for (const [raw, seconds] of GOOD) assert.equal(parseDurationSeconds(raw), seconds, raw);
  for (const raw of BAD) assert.equal(parseDurationSeconds(raw), undefined, JSON.stringify(raw));
  assert.equal(parseDurationSeconds(`${'9'.repeat(400)}h`), Infinity, 'absurd: Infinity, refused by range');
});

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(isHarnessError(err, ErrorCode.BadInput));
    return err.message;
  }
  assert.fail('expected a bad-input error');
}

test('seconds options take durations, still store seconds, and name the forms when refused', () => {
  const duration = numberParser('--duration', { min: 1, max: 86_400, unit: 'seconds' });
  assert.equal(duration('60s'), 60);
  assert.equal(duration('2m'), 120);
  assert.equal(duration('1m30s'), 90);
  assert.equal(duration('24h'), 86_400);
  assert.equal(duration('90'), 90);
  const expected = 'Expected --duration to be a number of seconds from 1 to 86400';
  for (const raw of ['500ms', '24h1s', '-1s', `${'9'.repeat(400)}h`])
    assert.equal(
      messageOf(() => duration(raw)),
      `${expected}, got ${JSON.stringify(raw)}`,
      'out of range',
    );
  for (const raw of ['60x', '', '1d'])
    assert.equal(
      messageOf(() => duration(raw)),
      `${expected}, got ${JSON.stringify(raw)}; seconds as a number (90) or with units as in Go (90s, 2m, 1m30s, 500ms, 1h)`,
      'malformed: the forms it may take',
    );
  const grace = numberParser('--grace', { min: 0, max: 3600, integer: true, unit: 'seconds' });
  assert.equal(grace('1m'), 60);
  assert.match(
    messageOf(() => grace('1500ms')),
    /an integer of seconds/,
  );
  const qps = numberParser('--qps', { min: 0 });
  assert.match(
    messageOf(() => qps('60s')),
    /^Expected --qps to be a non-negative number, got "60s"$/,
    'units only where seconds are asked',
  );
});

test('--restart-at: none, seconds or a duration, as the seconds string', () => {
  const restartAt = restartAtParser('--restart-at');
  assert.equal(restartAt('none'), 'none');
  assert.equal(restartAt('20'), '20');
  assert.equal(restartAt('1m30s'), '90');
  assert.equal(restartAt('500ms'), '0.5');
  for (const raw of ['', 'never', '-1', '-5s', '60x', 'NaN'])
    assert.match(
      messageOf(() => restartAt(raw)),
      /^Expected --restart-at to be a number of seconds in \[0, --duration\) or "none", got /,
    );
});
