import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exitCodeOfRows } from './exit-code.ts';

test('runs exit 0 when every verdict passed, 1 when one failed, 3 when one could not run', () => {
  assert.equal(exitCodeOfRows([{ verdict: 'pass' }, { verdict: 'pass' }]), 0);
  assert.equal(exitCodeOfRows([{ verdict: 'pass' }, { verdict: 'fail' }]), 1);
  // A failed verdict beside a run that never ran is still a broken experiment, not a result.
  assert.equal(exitCodeOfRows([{ verdict: 'fail' }, { verdict: 'aborted' }]), 3);
  assert.equal(exitCodeOfRows([]), 3);
});
