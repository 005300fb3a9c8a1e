import { formatMarkdownTable } from '../markdown-table.ts';
import type { Comparison, MetricComparison } from './compare-runs.ts';

const int = (n: number): string => n.toLocaleString('en-US');
const fixed = (n: number, digits: number): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function value(m: MetricComparison, side: 'baseline' | 'candidate'): string {
  if (m.unit === 'ms') return `${fixed(m[side], 2)} ms`;
  const [k, n] = m.counts?.[side] ?? [0, 0];
  return `${fixed(m[side], 1)} (${int(k)}/${int(n)})`;
}

function delta(m: MetricComparison): string {
  const d = m.candidate - m.baseline;
  const sign = d > 0 ? '+' : d < 0 ? '-' : '±';
  const ratio = m.baseline > 0 ? ` x${fixed(m.candidate / m.baseline, 2)}` : '';
  return `${sign}${fixed(Math.abs(d), m.unit === 'ms' ? 2 : 1)}${ratio}`;
}

const formatP = (p: number): string => (p < 0.0001 ? '<0.0001' : p.toPrecision(2));

/** The comparison as a Markdown table plus what did not match; "~" marks no significant change. */
export function formatComparison(c: Comparison): string {
  const rows = c.metrics.map((m) => [
    m.configuration,
    m.unit === 'ms' ? m.metric : `${m.metric} /100k`,
    `${String(m.runs[0])}/${String(m.runs[1])}`,
    value(m, 'baseline'),
    value(m, 'candidate'),
    delta(m),
    formatP(m.candidate >= m.baseline ? m.adjusted.higher : m.adjusted.lower),
    m.significance === 'worse' ? 'WORSE' : m.significance,
  ]);
  const table = formatMarkdownTable(
    ['configuration', 'metric', 'runs b/c', 'baseline', 'candidate', 'delta', 'p (Holm)', 'change'],
    rows,
  );
  const worse = c.metrics.filter((m) => m.significance === 'worse');
  // The exact rank-sum test's smallest p with n and m repeats is 1 / C(n + m, n), before Holm.
  const unreachable = c.metrics.filter(
    (m) => m.unit === 'ms' && 1 / choose(m.runs[0] + m.runs[1], m.runs[0]) >= c.alpha,
  );
  const lines = [
    table,
    `Failures: exact Poisson rate test pooled over repeats; latency: exact rank-sum test over repeats (per-run p50/p99). One-sided, Holm-adjusted over all ${String(c.metrics.length)} tests, alpha ${String(c.alpha)}; "~" = no significant change.`,
    ...(unreachable.length
      ? [
          `Latency with ${[...new Set(unreachable.map((m) => m.runs.join('/')))].join(', ')} runs cannot reach alpha ${String(c.alpha)} (smallest exact p = 1/C(n+m, n)); use --repeat 5 or more on both sides.`,
        ]
      : []),
    ...c.onlyInBaseline.map((l) => `only in the baseline (not compared): ${l}`),
    ...c.onlyInCandidate.map((l) => `only in the candidate (not compared): ${l}`),
    worse.length
      ? `REGRESSION: ${worse.map((m) => `${m.configuration} ${m.metric}`).join('; ')}`
      : 'No significant regression.',
  ];
  return `${lines.join('\n')}\n`;
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i += 1) r = (r * (n - k + i)) / i;
  return r;
}
