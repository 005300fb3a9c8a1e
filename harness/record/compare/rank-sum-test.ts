import type { OneSidedP } from './rate-test.ts';

/**
 * Wilcoxon-Mann-Whitney rank-sum test, exact: the permutation distribution of the candidate's rank
 * sum over every way of splitting the pooled values into groups of the two sizes, ties given mid-ranks
 * (so the distribution is the conditional one given the ties, as R's coin::wilcox_test computes it).
 * Repeats are few (5 in the ASM table), where the normal approximation is poor; the exact count is a
 * small dynamic programme over (items seen, items picked, doubled rank sum).
 * With 3 repeats on each side the smallest possible p is 1/20 = 0.05: too few to call anything at 1 %.
 */
export function compareRankSums(baseline: readonly number[], candidate: readonly number[]): OneSidedP {
  const n = baseline.length;
  const m = candidate.length;
  if (n === 0 || m === 0) return { higher: 1, lower: 1 };
  const ranks2 = doubledMidRanks([...baseline, ...candidate]);
  const observed = ranks2.slice(n).reduce((a, b) => a + b, 0);
  const maxSum = ranks2.reduce((a, b) => a + b, 0);
  // ways[j][s]: subsets of size j of the items so far whose doubled rank sum is s.
  let ways: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(maxSum + 1).fill(0));
  (ways[0] as number[])[0] = 1;
  for (const r of ranks2) {
    const next = ways.map((row) => [...row]);
    for (let j = 1; j <= m; j += 1) {
      const from = ways[j - 1] ?? [];
      const to = next[j] ?? [];
      for (let s = r; s <= maxSum; s += 1) to[s] = (to[s] ?? 0) + (from[s - r] ?? 0);
    }
    ways = next;
  }
  const dist = ways[m] as number[];
  const total = dist.reduce((a, b) => a + b, 0);
  let atLeast = 0;
  let atMost = 0;
  dist.forEach((count, s) => {
    if (s >= observed) atLeast += count;
    if (s <= observed) atMost += count;
  });
  return { higher: atLeast / total, lower: atMost / total };
}

/** Ranks 1..N of the pooled values, ties sharing their mean rank, times two (integers). */
function doubledMidRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length).fill(0);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]?.v === order[start]?.v) end += 1;
    for (let k = start; k <= end; k += 1) ranks[order[k]?.i ?? 0] = start + 1 + end + 1;
    start = end + 1;
  }
  return ranks;
}
