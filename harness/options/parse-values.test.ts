import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { choiceParser, numberParser, pathParser } from './parse-values.ts';

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(isHarnessError(err, ErrorCode.BadInput));
    assert.equal(err.exitCode, 2);
    return err.message;
  }
  assert.fail('expected a bad-input error');
}

test('numbers: range, integer and the raw value in the message', () => {
  const grace = numberParser('--grace', { min: 0, unit: 'seconds' });
  assert.equal(grace('120'), 120);
  assert.equal(grace('0.5'), 0.5);
  assert.equal(
    messageOf(() => grace('-1')),
    'Expected --grace to be a non-negative number of seconds, got "-1"',
  );
  assert.equal(
    messageOf(() => grace('abc')),
    'Expected --grace to be a non-negative number of seconds, got "abc"; seconds as a number (90) or with units as in Go (90s, 2m, 1m30s, 500ms, 1h)',
  );
  assert.match(
    messageOf(() => grace('')),
    /got ""/,
  );
  const c = numberParser('--connections', { min: 1, integer: true });
  assert.equal(c('100'), 100);
  assert.equal(
    messageOf(() => c('2.5')),
    'Expected --connections to be an integer >= 1, got "2.5"',
  );
});

test('choices and paths', () => {
  const scenario = choiceParser('--scenario', ['load-smoke'] as const);
  assert.equal(scenario('load-smoke'), 'load-smoke');
  assert.equal(
    messageOf(() => scenario('nope')),
    'Expected --scenario to be one of load-smoke, got "nope"',
  );
  assert.equal(pathParser('--path')('/status/418'), '/status/418');
  assert.match(
    messageOf(() => pathParser('--path')('status')),
    /starting with "\/"/,
  );
});

test('request paths: RFC 3986 characters, percent-encodings whole, a query, nothing else', () => {
  const path = pathParser('--path');
  for (const ok of [
    '/',
    '/status/418',
    '/delay/1?x=%20&y=a/b?c',
    "/anything/a-b_c.d~!$&'()*+,;=:@",
    '/%E2%82%AC',
  ])
    assert.equal(path(ok), ok, ok);
  const table: [string, string][] = [
    ['/status/418 ', 'a trailing space'],
    ['/sta tus', 'a space'],
    ['/status\t418', 'a tab'],
    ['/status/\u0000', 'NUL'],
    ['/status/\n418', 'a newline'],
    ['/status/%4', 'a cut percent-encoding'],
    ['/status/%zz', 'a percent sign without hex'],
    ['/status#frag', 'a fragment'],
    ['/€', 'a character outside ASCII, not encoded'],
    ['/a"b', 'a quote'],
  ];
  for (const [bad, what] of table)
    assert.match(
      messageOf(() => path(bad)),
      /Expected --path to be a URL path starting with "\/"/,
      what,
    );
});
