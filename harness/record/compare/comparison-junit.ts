import { buildJUnit } from '../junit.ts';
import type { Comparison } from './compare-runs.ts';

/**
 * A test case per configuration and metric, failed when significantly worse than the baseline (a
 * metric not gated passes, its message says why); and one per baseline configuration the candidate
 * did not run, failed unless `allowMissing`.
 */
export function comparisonJUnit(
  comparison: Comparison,
  timestamp = new Date(),
  allowMissing = false,
): string {
  return buildJUnit(
    'ztunnel-harness compare',
    [
      ...comparison.metrics.map((m) => ({
        className: `ztunnel-harness.compare.${m.configuration}`,
        name: m.metric,
        outcome: m.significance === 'worse' ? ('fail' as const) : ('pass' as const),
        message: `${m.metric}: baseline ${String(m.baseline)}, candidate ${String(m.candidate)} ${m.unit} over ${String(m.runs[0])} / ${String(m.runs[1])} runs; Holm-adjusted p (higher) ${m.adjusted.higher.toPrecision(3)}: ${m.significance}${m.note ? ` (${m.note})` : ''}`,
      })),
      ...comparison.onlyInBaseline.map((configuration) => ({
        className: `ztunnel-harness.compare.${configuration}`,
        name: 'run by the candidate',
        outcome: allowMissing ? ('pass' as const) : ('fail' as const),
        message: `${configuration}: in the baseline, not in the candidate`,
      })),
    ],
    timestamp,
  );
}
