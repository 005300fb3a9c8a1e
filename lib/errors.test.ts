import assert from 'node:assert/strict';
import { test } from 'node:test';
import { badInput, ErrorCode, HarnessError, isHarnessError } from './errors.ts';

test('bad input says what, what was expected and the value received, and exits 2', () => {
  const err = badInput('--grace', 'a non-negative number of seconds', 'abc');
  assert.equal(err.message, 'Expected --grace to be a non-negative number of seconds, got "abc"');
  assert.equal(err.code, ErrorCode.BadInput);
  assert.equal(err.exitCode, 2);
});

test('a missing tool exits 2, a failed component 3 (could not run), an interruption 130; cause is kept', () => {
  const cause = new Error('ENOENT');
  const missing = new HarnessError(ErrorCode.ToolMissing, 'k6 not found', { cause });
  assert.equal(missing.exitCode, 2);
  assert.equal(missing.cause, cause);
  assert.equal(new HarnessError(ErrorCode.ComponentFailed, 'ztunnel crashed').exitCode, 3);
  assert.equal(new HarnessError(ErrorCode.LoadFailed, 'fortio exited 1').exitCode, 3);
  assert.equal(new HarnessError(ErrorCode.ProvisionFailed, 'go build failed').exitCode, 3);
  assert.equal(new HarnessError(ErrorCode.Aborted, 'SIGINT').exitCode, 130);
});

test('isHarnessError narrows by code', () => {
  const err: unknown = new HarnessError(ErrorCode.Aborted, 'interrupted');
  assert.ok(isHarnessError(err));
  assert.ok(isHarnessError(err, ErrorCode.Aborted));
  assert.ok(!isHarnessError(err, ErrorCode.BadInput));
  assert.ok(!isHarnessError(new Error('plain')));
});
