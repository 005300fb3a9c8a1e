import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { comparePoissonRates } from './rate-test.ts';
import type { OneSidedP } from './rate-test.ts';

/** One run's count of a failure class and the requests it made. */
export interface RunCount {
  k: number;
  n: number;
}

/** Baseline runs needed before a count is judged: two give a spread with one degree of freedom. */
export const MIN_BASELINE_RUNS = 3;

export interface SpreadRateTest {
  p: OneSidedP;
  /** The runs' dispersion over Poisson (1 = the requests' own noise only). */
  dispersion: number;
  /** Its degrees of freedom: runs minus one, per side. */
  df: number;
}

/**
 * Pearson's dispersion of the runs around their own side's pooled rate (quasi-Poisson: Var k_i =
 * phi n_i lambda; McCullagh & Nelder 1989, 4.5), floored at 1. Each side around its own rate, so a
 * shift between the sides is not taken for spread.
 */
export function runDispersion(sides: readonly (readonly RunCount[])[]): { phi: number; df: number } {
  let x2 = 0;
  let df = 0;
  for (const runs of sides) {
    const k = runs.reduce((s, r) => s + r.k, 0);
    const n = runs.reduce((s, r) => s + r.n, 0);
    if (runs.length < 2 || n === 0) continue;
    df += runs.length - 1;
    const rate = k / n;
    if (rate === 0) continue;
    for (const r of runs) x2 += (r.k - r.n * rate) ** 2 / (r.n * rate);
  }
  return { phi: df > 0 ? Math.max(1, x2 / df) : 1, df };
}

/**
 * Failure counts compared over runs as well as requests. E1's count moves from run to run far beyond
 * Poisson (CPU contention stretches T_past differently in each run), so the exact pooled test alone
 * calls two runs of unchanged code different. Here a change must clear both:
 * - the exact conditional Poisson test over the pooled requests (rate-test.ts), the requests' noise;
 * - the quasi-Poisson score test with the runs' dispersion phi: z = (K_c - N_c K_b / N_b) /
 *   sqrt(phi lambda N_c (1 + N_c / N_b)), lambda the rate pooled under no change, the runs' noise,
 *   referred to Student's t on phi's degrees of freedom (phi is estimated from a few runs, and E1's
 *   counts are heavy-tailed: a run whose deadline meets a CPU stall loses ten times the median).
 * The larger p of the two is the test's. Undefined when the baseline has fewer than
 * MIN_BASELINE_RUNS runs: with no spread to go by, the count is shown and not judged.
 */
export function compareRatesOverRuns(
  baseline: readonly RunCount[],
  candidate: readonly RunCount[],
): SpreadRateTest | undefined {
  if (baseline.length < MIN_BASELINE_RUNS || candidate.length === 0) return undefined;
  const sum = (runs: readonly RunCount[], f: (r: RunCount) => number): number =>
    runs.reduce((s, r) => s + f(r), 0);
  const [kb, nb, kc, nc] = [
    sum(baseline, (r) => r.k),
    sum(baseline, (r) => r.n),
    sum(candidate, (r) => r.k),
    sum(candidate, (r) => r.n),
  ];
  const { phi, df } = runDispersion([baseline, candidate]);
  const exact = comparePoissonRates(kb, nb, kc, nc);
  const lambda = nb + nc > 0 ? (kb + kc) / (nb + nc) : 0;
  if (lambda === 0 || nb === 0 || nc === 0) return { p: exact, dispersion: phi, df };
  const z = (kc - (nc * kb) / nb) / Math.sqrt(phi * lambda * nc * (1 + nc / nb));
  // phi is estimated from few runs: the score is referred to Student's t on phi's degrees of freedom.
  const quasi = { higher: 1 - tCdf(z, df), lower: tCdf(z, df) };
  return {
    p: { higher: Math.max(exact.higher, quasi.higher), lower: Math.max(exact.lower, quasi.lower) },
    dispersion: phi,
    df,
  };
}
