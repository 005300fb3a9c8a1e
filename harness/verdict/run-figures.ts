// The run's outcome as typed figures: what the verdict judges (thresholds.ts) and what the summary
// row renders (record/run-row.ts countColumns), computed once from the tally and the bursts.
import type { Burst, RecordTally } from '../tally/index.ts';
import { OUTCOME_CLASSES, summaryColumnOf } from '../tally/index.ts';
import type { Metric } from './thresholds.ts';

/** Every figure a threshold may name; NaN where the run has none (no latency without requests). */
export type RunFigures = Record<Metric, number>;

/**
 * Requests by outcome: each class on its own (`http_503_uc`, `h2`), and folded as the summary row's
 * columns fold them (`http_503` is every 503, `other` takes `h2` in); `failed` is requests - ok
 * unless the run counts more (E3's long-lived connections), `failed_rate` over requests and
 * `success_rate` its complement, as Istio's restart tests judge.
 */
export function runFigures(input: {
  tally: RecordTally | undefined;
  bursts: readonly Burst[];
  droppedIterations: number;
  failed?: number;
}): RunFigures {
  const { tally, bursts } = input;
  const totals = tally?.timeline.totals();
  const folded = (column: string): number =>
    totals
      ? OUTCOME_CLASSES.filter((c) => summaryColumnOf(c) === column).reduce((n, c) => n + totals[c], 0)
      : 0;
  const requests = tally?.total ?? 0;
  const ok = folded('ok');
  const failed = input.failed ?? requests - ok;
  return {
    requests,
    failed,
    failed_rate: requests > 0 ? failed / requests : 0,
    // Istio's traffic generator's figure (result.go CheckSuccessRate); no requests, none (it fails).
    success_rate: requests > 0 ? (requests - failed) / requests : NaN,
    ok,
    http_503_uf: totals?.http_503_uf ?? 0,
    http_503_uc: totals?.http_503_uc ?? 0,
    http_503_urx: totals?.http_503_urx ?? 0,
    http_503_uh: totals?.http_503_uh ?? 0,
    http_503: folded('http_503'),
    other_5xx: folded('other_5xx'),
    refused: folded('refused'),
    reset: folded('reset'),
    eof: folded('eof'),
    timeout: folded('timeout'),
    h2: totals?.h2 ?? 0,
    other: folded('other') + folded('h2'),
    p50_ms: tally ? tally.latency.p50Ms : NaN,
    p99_ms: tally ? tally.latency.p99Ms : NaN,
    bursts: bursts.length,
    max_burst_ms: Math.max(0, ...bursts.map((b) => b.durationMs)),
    dropped_iterations: input.droppedIterations,
  };
}
