// The run folder's tables (events.csv, timeline.csv, latency.csv, zoom.csv, bursts.csv, cpu.csv):
// the run's records rendered as rows; the summary row is run-row.ts.
import type { LifecycleEvent } from '../../clusters/events.ts';
import type { BurstExplanation } from '../explain/explain-bursts.ts';
import type { CpuReport } from '../observe/cpu-monitor.ts';
import type { Burst, RecordTally, Timeline } from '../tally/index.ts';
import type { CsvRow } from './write-csv.ts';

export function eventRows(
  events: readonly LifecycleEvent[],
  wallOffsetMs: number,
  loadStartMs: number,
): CsvRow[] {
  return events.map((e) => ({
    t_s: ((e.atMs - loadStartMs) / 1000).toFixed(3),
    wall: new Date(e.atMs + wallOffsetMs).toISOString(),
    kind: e.kind,
    source: e.source,
    object: e.object,
    node: e.node ?? '',
    detail: e.detail ?? '',
  }));
}

/** timeline.csv (by request start) or timeline-by-end.csv (by completion): counts per class. */
export function timelineRows(timeline: Timeline, loadStartMs: number): CsvRow[] {
  return timeline.buckets().map((b) => ({ t_s: ((b.startMs - loadStartMs) / 1000).toFixed(3), ...b.counts }));
}

/** latency.csv: per bucket by request start, how many requests and their p50 / p99 duration. */
export function latencyRows(tally: RecordTally, loadStartMs: number): CsvRow[] {
  return tally.latencyByBucket.map((b) => ({
    t_s: ((b.startMs - loadStartMs) / 1000).toFixed(3),
    requests: b.requests,
    p50_ms: b.p50Ms.toFixed(2),
    p99_ms: b.p99Ms.toFixed(2),
  }));
}

/** Seconds of context on each side of a burst in its zoom. */
export const ZOOM_MARGIN_MS = 1000;

/**
 * zoom.csv: for each burst (numbered from 1), the fine (10 ms) buckets from a second before its first
 * failure to a second after its last, every class counted, empty buckets included.
 */
export function zoomRows(tally: RecordTally, bursts: readonly Burst[], loadStartMs: number): CsvRow[] {
  const fine = tally.fine.buckets();
  return bursts.flatMap((b, i) => {
    const from = b.startMs - ZOOM_MARGIN_MS;
    const to = b.startMs + b.durationMs + ZOOM_MARGIN_MS;
    return fine
      .filter((f) => f.startMs >= from && f.startMs <= to)
      .map((f) => ({ burst: i + 1, t_s: ((f.startMs - loadStartMs) / 1000).toFixed(3), ...f.counts }));
  });
}

export function burstRows(
  bursts: readonly Burst[],
  loadStartMs: number,
  explanations: readonly BurstExplanation[] = [],
): CsvRow[] {
  const rel = (ms: number): string => ((ms - loadStartMs) / 1000).toFixed(3);
  return bursts.map((b, i) => {
    const e = explanations[i];
    const n = (v: number | undefined): number | string => v ?? '';
    return {
      start_s: rel(b.startMs),
      duration_ms: b.durationMs,
      failures: b.failures,
      cause_kind: b.cause?.kind ?? '',
      cause_object: b.cause?.object ?? '',
      cause_t_s: b.cause ? rel(b.cause.atMs) : '',
      mechanism: e?.mechanism ?? '',
      gateway_failures: n(e?.gatewayFailures),
      dropped_connections: n(e?.droppedConnections),
      dropped_in_flight: n(e?.droppedInFlight),
      failed_before_drop: n(e?.failedBeforeDrop),
      failed_after_drop: n(e?.failedAfterDrop),
      gateway_reaction_ms: n(e?.gatewayReactionMs),
      cause_timeline: e?.causeTimeline ?? '',
      explanation: e?.text ?? '',
    };
  });
}

/** cpu.csv: one row per component per sample (t_s on the load's clock). */
export function cpuRows(report: CpuReport, loadStartMs: number): CsvRow[] {
  return report.samples.map((s) => ({
    t_s: ((s.atMs - loadStartMs) / 1000).toFixed(3),
    component: s.component,
    group: s.group,
    cpu_pct: s.pct.toFixed(1),
    run_queue_wait_pct: s.waitPct.toFixed(1),
  }));
}
