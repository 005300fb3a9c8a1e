import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from './median.ts';

test('median: the middle value, the mean of the middle two, NaN for none', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 6, 5]), 4.5);
  assert.ok(Number.isNaN(median([])));
});
