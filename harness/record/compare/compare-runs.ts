import { median } from '../../../lib/median.ts';
import { groupByConfiguration, labelConfigurations } from './configuration-key.ts';
import type { Configuration } from './configuration-key.ts';
import { compareFigureMeans } from './figure-test.ts';
import { GATE_FIGURES } from './gate-figures.ts';
import type { GateFigure } from './gate-figures.ts';
import { adjustHolm } from './holm.ts';
import { compareRankSums } from './rank-sum-test.ts';
import type { OneSidedP } from './rate-test.ts';
import { FAILURE_CLASSES, LATENCY_COLUMNS } from './read-runs.ts';
import type { RunRow } from './read-runs.ts';
import { compareRatesOverRuns, MIN_BASELINE_RUNS } from './spread-rate-test.ts';
import type { RunCount } from './spread-rate-test.ts';

/** 'not gated': shown, not judged (too few runs to judge it; `note` says why). */
export type Significance = 'worse' | 'better' | '~' | 'not gated';

export interface MetricComparison {
  configuration: string;
  metric: string;
  runs: [number, number];
  baseline: number;
  candidate: number;
  /**
   * 'per100k' (failures per 100,000 requests, pooled over repeats), 'ms' (latency: median over
   * repeats; a mechanism's time: mean) or 'ratio' (a mechanism's ratio or share, mean over repeats).
   */
  unit: 'per100k' | 'ms' | 'ratio';
  /** What kind of test: a failure count, a latency percentile, or a mechanism's figure. */
  kind: 'count' | 'latency' | 'figure';
  counts?: { baseline: [number, number]; candidate: [number, number] };
  /** Counts: the runs' dispersion over Poisson the test used. */
  dispersion?: number;
  p: OneSidedP;
  /** Holm-adjusted over every gated test in the comparison, per direction. */
  adjusted: OneSidedP;
  significance: Significance;
  /** Why a metric is not gated. */
  note?: string;
}

export interface Comparison {
  metrics: MetricComparison[];
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  alpha: number;
}

type Pending = Omit<MetricComparison, 'adjusted' | 'significance'> & {
  /** Figures: the smallest change that counts, and which way is worse. */
  figure?: Pick<GateFigure, 'tolerance' | 'worse'>;
};

const NO_EVIDENCE: OneSidedP = { higher: 1, lower: 1 };
const tooFewRuns = (runs: number): string =>
  `not gated: the baseline has ${String(runs)} run${runs === 1 ? '' : 's'}, the run-to-run spread needs ${String(MIN_BASELINE_RUNS)} or more`;

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
  const perRun = (rows: RunRow[], f: (r: RunRow) => number): RunCount[] =>
    rows.map((r) => ({ k: f(r), n: r.counts.requests }));
  return metrics
    .map(([metric, f]) => ({ metric, f, k: [sum(base, f), sum(cand, f)] as const }))
    .filter(({ metric, k }) => metric === 'failed' || k[0] + k[1] > 0)
    .map(({ metric, f, k }): Pending => {
      const test = compareRatesOverRuns(perRun(base, f), perRun(cand, f));
      return {
        configuration: label,
        metric,
        runs: [base.length, cand.length],
        baseline: per100k(k[0], requests[0]),
        candidate: per100k(k[1], requests[1]),
        unit: 'per100k',
        kind: 'count',
        counts: { baseline: [k[0], requests[0]], candidate: [k[1], requests[1]] },
        p: test?.p ?? NO_EVIDENCE,
        ...(test ? { dispersion: test.dispersion } : { note: tooFewRuns(base.length) }),
      };
    });
}

const per100k = (k: number, n: number): number => (n === 0 ? 0 : (k / n) * 100_000);

/** The exact rank-sum test's smallest one-sided p with n and m repeats: 1 / C(n + m, n). */
function smallestRankSumP(n: number, m: number): number {
  let ways = 1;
  for (let i = 1; i <= n; i += 1) ways = (ways * (m + i)) / i;
  return 1 / ways;
}

function latencyMetrics(label: string, base: RunRow[], cand: RunRow[], alpha: number): Pending[] {
  return LATENCY_COLUMNS.flatMap((column) => {
    const b = base.flatMap((r) => (r.latency[column] === undefined ? [] : [r.latency[column]]));
    const c = cand.flatMap((r) => (r.latency[column] === undefined ? [] : [r.latency[column]]));
    if (!b.length || !c.length) return [];
    const reachable = smallestRankSumP(b.length, c.length) < alpha;
    return [
      {
        configuration: label,
        metric: column,
        runs: [b.length, c.length] as [number, number],
        baseline: median(b),
        candidate: median(c),
        unit: 'ms' as const,
        kind: 'latency' as const,
        p: reachable ? compareRankSums(b, c) : NO_EVIDENCE,
        ...(reachable
          ? {}
          : {
              note: `not gated: the exact rank-sum test over ${String(b.length)}/${String(c.length)} runs cannot reach alpha ${String(alpha)} (smallest p 1/C(n+m, n)); 5 or more runs on both sides can`,
            }),
      },
    ];
  });
}

function figureMetrics(label: string, base: RunRow[], cand: RunRow[]): Pending[] {
  return GATE_FIGURES.flatMap((figure) => {
    const values = (rows: RunRow[]): number[] =>
      rows.flatMap((r) => {
        const v = figure.value(r.values);
        return v === undefined ? [] : [v];
      });
    const b = values(base);
    const c = values(cand);
    if (!b.length || !c.length) return [];
    const p = compareFigureMeans(b, c);
    const twoSided = (q: OneSidedP): OneSidedP => {
      const both = Math.min(1, 2 * Math.min(q.higher, q.lower));
      return { higher: both, lower: both };
    };
    return [
      {
        configuration: label,
        metric: figure.metric,
        runs: [b.length, c.length] as [number, number],
        baseline: mean(b),
        candidate: mean(c),
        unit: figure.unit,
        kind: 'figure' as const,
        p: p === undefined ? NO_EVIDENCE : figure.worse === 'either' ? twoSided(p) : p,
        figure: { tolerance: figure.tolerance, worse: figure.worse },
        ...(p === undefined ? { note: tooFewRuns(b.length) } : {}),
      },
    ];
  });
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function judge(m: Pending, adjusted: OneSidedP, alpha: number): Significance {
  if (m.note !== undefined) return 'not gated';
  const diff = m.candidate - m.baseline;
  const beyond = (d: number): boolean => (m.figure ? d > m.figure.tolerance : true);
  if (m.figure?.worse === 'either') return adjusted.higher < alpha && beyond(Math.abs(diff)) ? 'worse' : '~';
  if (adjusted.higher < alpha && beyond(diff)) return 'worse';
  if (adjusted.lower < alpha && beyond(-diff)) return 'better';
  return '~';
}

/**
 * Baseline against candidate, configuration by configuration: failure counts over runs as well as
 * requests (spread-rate-test.ts), latency percentiles by the exact rank-sum test over repeats where
 * it can reach alpha, and the mechanisms' figures (gate-figures.ts) by a t test over runs beyond
 * their tolerance. A metric is worse (or better) when its Holm-adjusted one-sided p-value, over
 * every gated test, is below alpha; a metric with too few runs is shown and not gated.
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
        ...figureMetrics(label(key), b.rows, c.rows),
        ...latencyMetrics(label(key), b.rows, c.rows, alpha),
      );
  }
  const gated = pending.filter((m) => m.note === undefined);
  const higher = adjustHolm(gated.map((m) => m.p.higher));
  const lower = adjustHolm(gated.map((m) => m.p.lower));
  const metrics = pending.map((m): MetricComparison => {
    const i = gated.indexOf(m);
    const adjusted = i < 0 ? NO_EVIDENCE : { higher: higher[i] ?? 1, lower: lower[i] ?? 1 };
    const shown: Omit<Pending, 'figure'> & { figure?: unknown } = { ...m };
    delete shown.figure;
    return { ...shown, adjusted, significance: judge(m, adjusted, alpha) };
  });
  return {
    metrics,
    onlyInBaseline: [...base.keys()].filter((k) => !cand.has(k)).map(label),
    onlyInCandidate: [...cand.keys()].filter((k) => !base.has(k)).map(label),
    alpha,
  };
}
