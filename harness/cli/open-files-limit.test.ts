import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import { checkOpenFilesLimit, openFilesNeeded, readOpenFilesLimit } from './open-files-limit.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('open-files limit', () => {
  it('reads soft and hard from /proc/self/limits text, unlimited as Infinity', () => {
    assert.deepEqual(readOpenFilesLimit(LIMITS), { soft: 1024, hard: 524288 });
    assert.deepEqual(readOpenFilesLimit(LIMITS.replace('1024   ', 'unlimited')), {
      soft: Infinity,
      hard: 524288,
    });
    assert.equal(readOpenFilesLimit('no such line'), undefined);
  });

  it('-c 1000 under a soft limit of 1024 is refused as bad input naming the flag and what to run', () => {
    assert.ok(openFilesNeeded(1000) > 1024);
    assert.throws(
      () => {
        checkOpenFilesLimit(1000, { soft: 1024, hard: 524288 });
      },
      (err: unknown) =>
        isHarnessError(err) &&
        err.code === 'BAD_INPUT' &&
        /-c\/--connections/.test(err.message) &&
        /ulimit -n \d+/.test(err.message) &&
        /got 1000/.test(err.message),
    );
  });

  it('passes when the soft limit covers the run, or when there is no /proc to read', () => {
    checkOpenFilesLimit(100, { soft: 1024, hard: 1024 });
    checkOpenFilesLimit(1000, { soft: 524288, hard: 524288 });
    checkOpenFilesLimit(1000, undefined);
  });

  it('this process (started by npm run) has its soft limit at its hard limit', () => {
    const limits = readOpenFilesLimit();
    if (!limits || process.env['npm_lifecycle_event'] === undefined) return; // not through npm here
    assert.equal(limits.soft, limits.hard);
  });
});
