import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isK6VersionFit, parseK6VersionOutput } from './k6-version.ts';

test('k6 version output is parsed', () => {
  assert.equal(parseK6VersionOutput('k6 v2.2.0 (go1.26.8, linux/amd64)'), '2.2.0');
  assert.equal(parseK6VersionOutput('k6 v1.8.1 (commit/abc, go1.24.1, linux/amd64)\nExtensions:'), '1.8.1');
  assert.equal(parseK6VersionOutput('something else 2.2.0'), undefined);
});

test('a k6 fits when it is 1.x or 2.x', () => {
  for (const version of ['1.0.0', '1.8.1', '2.2.0', '2.9.3']) assert.ok(isK6VersionFit(version), version);
  for (const version of ['0.57.0', '3.0.0', 'x']) assert.ok(!isK6VersionFit(version), version);
});
