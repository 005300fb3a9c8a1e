// Pass/fail criteria in k6's threshold style, on the run's figures (run-figures.ts): `failed_rate<1e-4`,
// `p99_ms<500`, `max_burst_ms<=500`, `http_503<=9`. `--max-failed N` is the shorthand `failed<=N`
// and always holds its place first. The verdict lists every threshold with the value it met.
import { badInput } from '../../lib/index.ts';
import { OUTCOME_CLASSES } from '../tally/index.ts';

/** What a threshold can name: the summary row's outcome figures, plus failed, failed_rate, success_rate. */
export const THRESHOLD_METRICS = [
  'requests',
  'failed',
  'failed_rate',
  'success_rate',
  ...OUTCOME_CLASSES,
  'p50_ms',
  'p99_ms',
  'bursts',
  'max_burst_ms',
  'dropped_iterations',
] as const;
export type Metric = (typeof THRESHOLD_METRICS)[number];

const OPERATORS = {
  '<': (a: number, b: number) => a < b,
  '<=': (a: number, b: number) => a <= b,
  '>': (a: number, b: number) => a > b,
  '>=': (a: number, b: number) => a >= b,
  '==': (a: number, b: number) => a === b,
  '!=': (a: number, b: number) => a !== b,
} as const;
type Operator = keyof typeof OPERATORS;

export interface Threshold {
  metric: Metric;
  operator: Operator;
  value: number;
  /** As written (normalised: no spaces). */
  text: string;
}

const SYNTAX = /^([a-z0-9_]+)(<=|>=|==|!=|<|>)(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;

export function parseThreshold(raw: string, flag = '--threshold'): Threshold {
  const text = raw.replace(/\s+/g, '');
  const m = SYNTAX.exec(text);
  const metric = m?.[1] as Metric | undefined;
  if (!m || !metric || !(THRESHOLD_METRICS as readonly string[]).includes(metric))
    throw badInput(
      flag,
      `metric<op>number with metric one of ${THRESHOLD_METRICS.join(', ')} and op one of ${Object.keys(OPERATORS).join(' ')}`,
      raw,
      "e.g. --threshold 'p99_ms<500' --threshold 'failed_rate<1e-4'",
    );
  return { metric, operator: m[2] as Operator, value: Number(m[3]), text };
}

/** Repeatable --threshold: validates each and collects them as written. */
export function thresholdCollector(flag: string) {
  return (raw: string, previous: string[] = []): string[] => [...previous, parseThreshold(raw, flag).text];
}

export interface ThresholdResult {
  threshold: Threshold;
  actual: number;
  ok: boolean;
}

export function evaluateThresholds(
  thresholds: readonly Threshold[],
  figures: Readonly<Record<Metric, number>>,
): ThresholdResult[] {
  return thresholds.map((threshold) => {
    const actual = figures[threshold.metric];
    // A figure the run does not have (no latency without requests) fails its threshold.
    return {
      threshold,
      actual,
      ok: Number.isFinite(actual) && OPERATORS[threshold.operator](actual, threshold.value),
    };
  });
}

/** `failed<=9: 3 ok; p99_ms<500: 612.4 FAILED` */
export function formatThresholdResults(results: readonly ThresholdResult[]): string {
  return results
    .map((r) => `${r.threshold.text}: ${String(Number(r.actual.toPrecision(6)))} ${r.ok ? 'ok' : 'FAILED'}`)
    .join('; ');
}
