import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';

export interface OneSidedP {
  /** P-value for "the candidate's value is higher" (a regression for failures and latency). */
  higher: number;
  /** P-value for "the candidate's value is lower". */
  lower: number;
}

/**
 * Exact conditional test of two Poisson rates (Przyborowski & Wilenski 1940; the C-test in Krishnamoorthy &
 * Thomson 2004): `k1` failures in `n1` requests against `k2` in `n2`. Given k = k1 + k2, under equal rates
 * k2 ~ Binomial(k, n2 / (n1 + n2)), so the p-values are binomial tails. Exact for any counts, including
 * the single-digit 503 counts of the ASM runs, where a normal approximation would be meaningless.
 */
export function comparePoissonRates(k1: number, n1: number, k2: number, n2: number): OneSidedP {
  const k = k1 + k2;
  if (k === 0 || n1 === 0 || n2 === 0) return { higher: 1, lower: 1 };
  const p = n2 / (n1 + n2);
  const atMost = (x: number): number => (x < 0 ? 0 : binomialCdf(x, k, p));
  return { higher: clamp(1 - atMost(k2 - 1)), lower: clamp(atMost(k2)) };
}

const clamp = (p: number): number => Math.min(1, Math.max(0, p));
