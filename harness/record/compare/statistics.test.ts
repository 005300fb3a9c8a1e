import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adjustHolm } from './holm.ts';
import { compareRankSums } from './rank-sum-test.ts';
import { comparePoissonRates } from './rate-test.ts';

const close = (actual: number, expected: number): void => {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${String(actual)} != ${String(expected)}`);
};

test('Poisson rate test: binomial tails given the total, by hand', () => {
  // 2 vs 10 failures in equal exposure: P(X >= 10 | X ~ Bin(12, 1/2)) = (66 + 12 + 1) / 4096.
  const p = comparePoissonRates(2, 1_000_000, 10, 1_000_000);
  close(p.higher, 79 / 4096);
  close(p.lower, 1 - (12 + 1) / 4096); // P(X <= 10)
  // Exposure matters: the same 2 vs 10 when the candidate served 5x the requests is no change upward.
  assert.ok(comparePoissonRates(2, 1_000_000, 10, 5_000_000).higher > 0.4);
  assert.deepEqual(comparePoissonRates(0, 10, 0, 10), { higher: 1, lower: 1 });
  // Single-digit counts as in the ASM table (5 of 289,970 vs 4 of 297,518): nowhere near significant.
  assert.ok(comparePoissonRates(5, 289_970, 4, 297_518).higher > 0.5);
});

test('rank-sum test: the exact permutation distribution, with ties as mid-ranks', () => {
  // Complete separation with 3 per side: 1 of C(6,3) = 20 splits.
  close(compareRankSums([1, 2, 3], [4, 5, 6]).higher, 1 / 20);
  close(compareRankSums([1, 2, 3], [4, 5, 6]).lower, 1);
  // Candidate ranks {4, 6, 7, 8} (sum 25) of 1..8: sums >= 25 are {5,6,7,8} and {4,6,7,8}: 2 of 70.
  close(compareRankSums([1, 2, 3, 4.5], [4, 5, 6, 7]).higher, 2 / 70);
  // All tied: no evidence either way.
  assert.deepEqual(compareRankSums([3, 3], [3, 3]), { higher: 1, lower: 1 });
  // Ties across groups: pooled [1, 2, 2, 3] has mid-ranks 1, 2.5, 2.5, 4; the candidate {2, 3} sums
  // 6.5, which only the two {2.5, 4} splits of the 6 reach.
  close(compareRankSums([1, 2], [2, 3]).higher, 2 / 6);
  assert.deepEqual(compareRankSums([], [1]), { higher: 1, lower: 1 });
});

test('Holm adjustment: step-down, monotone, capped at 1', () => {
  const adjusted = adjustHolm([0.01, 0.04, 0.03]);
  [0.03, 0.06, 0.06].forEach((p, i) => {
    close(adjusted[i] ?? NaN, p);
  });
  assert.deepEqual(adjustHolm([0.5, 0.9]), [1, 1]);
  assert.deepEqual(adjustHolm([]), []);
});
