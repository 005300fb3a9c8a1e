import { median } from '../../../lib/median.ts';
import { groupByConfiguration, labelConfigurations } from './configuration-key.ts';
import type { Configuration } from './configuration-key.ts';
import { adjustHolm } from './holm.ts';
import { compareRankSums } from './rank-sum-test.ts';
import { comparePoissonRates } from './rate-test.ts';
import type { OneSidedP } from './rate-test.ts';
import { FAILURE_CLASSES, LATENCY_COLUMNS } from './read-runs.ts';
import type { RunRow } from './read-runs.ts';

export type Significance = 'worse' | 'better' | '~';

export interface MetricComparison {
  configuration: string;
  metric: string;
  runs: [number, number];
  baseline: number;
  candidate: number;
  /** 'per100k' (failures per 100,000 requests, pooled over repeats) or 'ms' (median over repeats). */
  unit: 'per100k' | 'ms';
  counts?: { baseline: [number, number]; candidate: [number, number] };
  p: OneSidedP;
  /** Holm-adjusted over every test in the comparison, per direction. */
  adjusted: OneSidedP;
  significance: Significance;
}

export interface Comparison {
  metrics: MetricComparison[];
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  alpha: number;
}

type Pending = Omit<MetricComparison, 'adjusted' | 'significance'>;

function failureMetrics(label: string, base: RunRow[], cand: RunRow[]): Pending[] {
  const sum = (rows: RunRow[], f: (r: RunRow) => number): number => rows.reduce((n, r) => n + f(r), 0);
  const requests: [number, number] = [
    sum(base, (r) => r.counts.requests),
    sum(cand, (r) => r.counts.requests),
  ];
  const metrics: [string, (r: RunRow) => number][] = [
    ['failed', (r) => r.counts.requests - r.counts.ok],
    ...FAILURE_CLASSES.map((c): [string, (r: RunRow) => number] => [c, (r) => r.counts[c]]),
  ];
  return metrics
    .map(([metric, f]) => ({ metric, k: [sum(base, f), sum(cand, f)] as const }))
    .filter(({ metric, k }) => metric === 'failed' || k[0] + k[1] > 0)
    .map(({ metric, k }) => ({
      configuration: label,
      metric,
      runs: [base.length, cand.length],
      baseline: per100k(k[0], requests[0]),
      candidate: per100k(k[1], requests[1]),
      unit: 'per100k',
      counts: { baseline: [k[0], requests[0]], candidate: [k[1], requests[1]] },
      p: comparePoissonRates(k[0], requests[0], k[1], requests[1]),
    }));
}

const per100k = (k: number, n: number): number => (n === 0 ? 0 : (k / n) * 100_000);

function latencyMetrics(label: string, base: RunRow[], cand: RunRow[]): Pending[] {
  return LATENCY_COLUMNS.flatMap((column) => {
    const b = base.flatMap((r) => (r.latency[column] === undefined ? [] : [r.latency[column]]));
    const c = cand.flatMap((r) => (r.latency[column] === undefined ? [] : [r.latency[column]]));
    if (!b.length || !c.length) return [];
    return [
      {
        configuration: label,
        metric: column,
        runs: [b.length, c.length] as [number, number],
        baseline: median(b),
        candidate: median(c),
        unit: 'ms' as const,
        p: compareRankSums(b, c),
      },
    ];
  });
}

/**
 * Baseline against candidate, configuration by configuration: failure rates by the exact Poisson
 * test pooled over repeats, latency percentiles by the exact rank-sum test over repeats. A metric is
 * worse (or better) when its Holm-adjusted one-sided p-value is below alpha.
 */
export function compareRuns(baseline: RunRow[], candidate: RunRow[], alpha: number): Comparison {
  const base = groupByConfiguration(baseline);
  const cand = groupByConfiguration(candidate);
  const configurations: Configuration[] = [...base.values(), ...cand.values()].map((g) => g.configuration);
  const labels = labelConfigurations([...new Map(configurations.map((c) => [c.key, c])).values()]);
  const label = (key: string): string => labels.get(key) ?? key;
  const pending: Pending[] = [];
  for (const [key, b] of base) {
    const c = cand.get(key);
    if (c)
      pending.push(
        ...failureMetrics(label(key), b.rows, c.rows),
        ...latencyMetrics(label(key), b.rows, c.rows),
      );
  }
  const higher = adjustHolm(pending.map((m) => m.p.higher));
  const lower = adjustHolm(pending.map((m) => m.p.lower));
  const metrics = pending.map((m, i): MetricComparison => {
    const adjusted = { higher: higher[i] ?? 1, lower: lower[i] ?? 1 };
    const significance: Significance =
      adjusted.higher < alpha ? 'worse' : adjusted.lower < alpha ? 'better' : '~';
    return { ...m, adjusted, significance };
  });
  return {
    metrics,
    onlyInBaseline: [...base.keys()].filter((k) => !cand.has(k)).map(label),
    onlyInCandidate: [...cand.keys()].filter((k) => !base.has(k)).map(label),
    alpha,
  };
}
