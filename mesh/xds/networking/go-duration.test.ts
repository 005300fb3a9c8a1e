import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from './go-duration.ts';

describe('parseGoDuration', () => {
  it("reads what Go's time.ParseDuration reads, in milliseconds", () => {
    const table: [string, number][] = [
      ['0', 0],
      ['0s', 0],
      ['1.5s', 1500],
      ['100ms', 100],
      ['1m30s', 90_000],
      ['2h', 7_200_000],
      ['.5s', 500],
      ['250us', 0.25],
    ];
    for (const [text, ms] of table) assert.equal(parseGoDuration(text), ms, text);
  });

  it('refuses what is not a duration (a bare number, a unit alone, a negative, trailing text)', () => {
    for (const text of ['5', 's', '-1s', '1s ', '1d', '', '1.5', 'abc'])
      assert.equal(parseGoDuration(text), undefined, text);
  });
});
