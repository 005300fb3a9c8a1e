import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGoVersionFit, isK6VersionFit, parseK6VersionOutput } from './k6-version.ts';

test('k6 version output is parsed', () => {
  assert.equal(parseK6VersionOutput('k6 v2.2.0 (go1.26.8, linux/amd64)'), '2.2.0');
  assert.equal(parseK6VersionOutput('k6 v1.8.1 (commit/abc, go1.24.1, linux/amd64)\nExtensions:'), '1.8.1');
  assert.equal(parseK6VersionOutput('something else 2.2.0'), undefined);
});

test('a k6 fits when it is the pin or newer within the same major', () => {
  assert.ok(isK6VersionFit('2.2.0', '2.2.0'));
  assert.ok(isK6VersionFit('2.2.3', '2.2.0'));
  assert.ok(isK6VersionFit('2.9.0', '2.2.0'));
  assert.ok(!isK6VersionFit('2.1.9', '2.2.0'));
  assert.ok(!isK6VersionFit('1.8.1', '2.2.0'));
  assert.ok(!isK6VersionFit('3.0.0', '2.2.0'));
});

test('go version output is compared by major.minor', () => {
  assert.ok(isGoVersionFit('go version go1.26.8 linux/amd64', '1.25'));
  assert.ok(isGoVersionFit('go version go1.25 linux/amd64', '1.25'));
  assert.ok(!isGoVersionFit('go version go1.24.3 linux/amd64', '1.25'));
  assert.ok(!isGoVersionFit('not go', '1.25'));
});
