import { buildJUnit } from '../junit.ts';
import type { Comparison } from './compare-runs.ts';

/** A test case per configuration and metric: failed when significantly worse than the baseline. */
export function comparisonJUnit(comparison: Comparison, timestamp = new Date()): string {
  return buildJUnit(
    'ztunnel-harness compare',
    comparison.metrics.map((m) => ({
      className: `ztunnel-harness.compare.${m.configuration}`,
      name: m.metric,
      outcome: m.significance === 'worse' ? 'fail' : 'pass',
      message: `${m.metric}: baseline ${String(m.baseline)}, candidate ${String(m.candidate)} ${m.unit} over ${String(m.runs[0])} / ${String(m.runs[1])} runs; Holm-adjusted p (higher) ${m.adjusted.higher.toPrecision(3)}: ${m.significance}`,
    })),
    timestamp,
  );
}
