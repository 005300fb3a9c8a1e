import tCdf from '@stdlib/stats-base-dists-t-cdf';
import type { OneSidedP } from './rate-test.ts';
import { MIN_BASELINE_RUNS } from './spread-rate-test.ts';

/**
 * A mechanism's figure (a time, a ratio, a share; one value per run) compared over runs: Student's
 * two-sample t test with the variance pooled over both sides, so a single candidate run is judged
 * against the baseline's spread (the prediction interval's test, df = runs - 2). Undefined when the
 * baseline has fewer than MIN_BASELINE_RUNS values. With no spread at all, any difference is
 * significant and the figure's tolerance alone decides (gate-figures.ts).
 */
export function compareFigureMeans(
  baseline: readonly number[],
  candidate: readonly number[],
): OneSidedP | undefined {
  const m = baseline.length;
  const c = candidate.length;
  if (m < MIN_BASELINE_RUNS || c === 0) return undefined;
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ss = (xs: readonly number[]): number => {
    const mu = mean(xs);
    return xs.reduce((s, x) => s + (x - mu) ** 2, 0);
  };
  const df = m + c - 2;
  const diff = mean(candidate) - mean(baseline);
  const se = Math.sqrt(((ss(baseline) + ss(candidate)) / df) * (1 / m + 1 / c));
  if (se === 0)
    return diff > 0 ? { higher: 0, lower: 1 } : diff < 0 ? { higher: 1, lower: 0 } : { higher: 1, lower: 1 };
  const t = diff / se;
  return { higher: 1 - tCdf(t, df), lower: tCdf(t, df) };
}
