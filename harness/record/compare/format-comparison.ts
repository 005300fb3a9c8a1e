import { formatMarkdownTable } from '../markdown-table.ts';
import type { Comparison, MetricComparison } from './compare-runs.ts';

const int = (n: number): string => n.toLocaleString('en-US');
const fixed = (n: number, digits: number): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const DIGITS = { per100k: 1, ms: 2, ratio: 2 } as const;

function value(m: MetricComparison, side: 'baseline' | 'candidate'): string {
  if (m.unit === 'ms') return `${fixed(m[side], 2)} ms`;
  if (m.unit === 'ratio') return fixed(m[side], 2);
  const [k, n] = m.counts?.[side] ?? [0, 0];
  return `${fixed(m[side], 1)} (${int(k)}/${int(n)})`;
}

function delta(m: MetricComparison): string {
  const d = m.candidate - m.baseline;
  const sign = d > 0 ? '+' : d < 0 ? '-' : '±';
  const ratio = m.baseline > 0 && m.unit !== 'ratio' ? ` x${fixed(m.candidate / m.baseline, 2)}` : '';
  return `${sign}${fixed(Math.abs(d), DIGITS[m.unit])}${ratio}`;
}

const formatP = (p: number): string => (p < 0.0001 ? '<0.0001' : p.toPrecision(2));

function change(m: MetricComparison): string {
  if (m.significance === 'worse') return m.kind === 'figure' && m.candidate < m.baseline ? 'MOVED' : 'WORSE';
  return m.significance;
}

function metricName(m: MetricComparison): string {
  if (m.kind === 'count')
    return `${m.metric} /100k${m.dispersion !== undefined && m.dispersion > 1 ? ` (runs' spread x${fixed(m.dispersion, 1)})` : ''}`;
  return m.metric;
}

/** Whether the comparison fails the gate: a regression, or a baseline configuration the candidate lacks. */
export function failsGate(c: Comparison, allowMissing: boolean): boolean {
  return c.metrics.some((m) => m.significance === 'worse') || (!allowMissing && c.onlyInBaseline.length > 0);
}

/** The comparison as a Markdown table plus what did not match; "~" marks no significant change. */
export function formatComparison(c: Comparison, allowMissing = false): string {
  const rows = c.metrics.map((m) => [
    m.configuration,
    metricName(m),
    `${String(m.runs[0])}/${String(m.runs[1])}`,
    value(m, 'baseline'),
    value(m, 'candidate'),
    delta(m),
    m.significance === 'not gated'
      ? '-'
      : formatP(m.candidate >= m.baseline ? m.adjusted.higher : m.adjusted.lower),
    change(m),
  ]);
  const table = formatMarkdownTable(
    ['configuration', 'metric', 'runs b/c', 'baseline', 'candidate', 'delta', 'p (Holm)', 'change'],
    rows,
  );
  const worse = c.metrics.filter((m) => m.significance === 'worse');
  const notes = [...new Set(c.metrics.flatMap((m) => (m.note ? [`${m.metric}: ${m.note}`] : [])))];
  const gated = c.metrics.filter((m) => m.significance !== 'not gated').length;
  const missing = allowMissing
    ? 'only in the baseline (not compared)'
    : 'MISSING from the candidate (fails the gate)';
  const lines = [
    table,
    `Failure counts: over runs as well as requests (the exact Poisson test and the quasi-Poisson test with the runs' spread; the larger p). Mechanism figures: t test over runs, worse only beyond their tolerance. Latency: exact rank-sum test over runs. One-sided, Holm-adjusted over the ${String(gated)} gated tests, alpha ${String(c.alpha)}; "~" = no significant change (docs/guide/comparing-runs.md).`,
    ...notes.map((n) => `shown, ${n}`),
    ...c.onlyInBaseline.map((l) => `${missing}: ${l}`),
    ...c.onlyInCandidate.map((l) => `only in the candidate (not compared): ${l}`),
    worse.length
      ? `REGRESSION: ${worse.map((m) => `${m.configuration} ${m.metric}`).join('; ')}`
      : !allowMissing && c.onlyInBaseline.length
        ? `FAILED: ${String(c.onlyInBaseline.length)} baseline configuration(s) not run by the candidate`
        : 'No significant regression.',
  ];
  return `${lines.join('\n')}\n`;
}
