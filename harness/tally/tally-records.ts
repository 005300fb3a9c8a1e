import { fromWallMs } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { RequestRecord } from '../load/index.ts';
import { classifyRecord } from './classify.ts';
import { createTimeline } from './timeline.ts';
import { createFortioHistogram, FORTIO_PERCENTILES } from './fortio-histogram.ts';
import type { FortioHistogramData } from './fortio-histogram.ts';
import type { Timeline } from './timeline.ts';

export interface RecordTally {
  timeline: Timeline;
  /** The same requests by completion time (start + duration): when a client saw each failure. */
  byEnd: Timeline;
  /** By start time at FINE_BUCKET_MS, for zooming into a burst. */
  fine: Timeline;
  /** Per `bucketMs` bucket by start time: p50 and p99 of the requests' durations. */
  latencyByBucket: { startMs: number; requests: number; p50Ms: number; p99Ms: number }[];
  total: number;
  byStatus: Map<number, number>;
  latency: { avgMs: number; p50Ms: number; p99Ms: number };
  /** fortio's histograms of every request's duration and of the failed ones', in seconds. */
  fortio: { durations: FortioHistogramData; errors: FortioHistogramData };
}

/** The zoom panels' resolution. */
export const FINE_BUCKET_MS = 10;

export interface RecordTallySink {
  /** One k6 record (pass as runLoad's `onRecord`, so the records file is read once). */
  add(record: RequestRecord): void;
  result(): RecordTally;
}

const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);

/** p50 and p99 per bucket, in bucket order. */
function bucketLatencies(
  durationsByBucket: ReadonlyMap<number, number[]>,
  originMs: number,
  bucketMs: number,
) {
  return [...durationsByBucket]
    .sort((a, b) => a[0] - b[0])
    .map(([bucket, list]) => {
      const inBucket = Float64Array.from(list).sort();
      return {
        startMs: originMs + bucket * bucketMs,
        requests: list.length,
        p50Ms: percentile(inBucket, 0.5),
        p99Ms: percentile(inBucket, 0.99),
      };
    });
}

/**
 * Places every k6 record on the run's monotonic clock (k6 writes Unix ms; the clock's wall offset
 * converts), classified, in `bucketMs` buckets from `originMs`.
 */
export function createRecordTally(options: {
  clock: Clock;
  originMs: number;
  bucketMs: number;
  isOk: (status: number) => boolean;
}): RecordTallySink {
  const timeline = createTimeline({ bucketMs: options.bucketMs, originMs: options.originMs });
  const byEnd = createTimeline({ bucketMs: options.bucketMs, originMs: options.originMs });
  const fine = createTimeline({ bucketMs: FINE_BUCKET_MS, originMs: options.originMs });
  const durations: number[] = [];
  const durationsByBucket = new Map<number, number[]>();
  const byStatus = new Map<number, number>();
  const histogram = createFortioHistogram();
  const errorsHistogram = createFortioHistogram();
  return {
    add(record) {
      const startMs = fromWallMs(options.clock, record.startWallMs);
      const outcome = classifyRecord(record, options.isOk);
      timeline.add(startMs, outcome);
      byEnd.add(startMs + record.durationMs, outcome);
      fine.add(startMs, outcome);
      durations.push(record.durationMs);
      const bucket = Math.floor((startMs - options.originMs) / options.bucketMs);
      const list = durationsByBucket.get(bucket);
      if (list) list.push(record.durationMs);
      else durationsByBucket.set(bucket, [record.durationMs]);
      byStatus.set(record.status, (byStatus.get(record.status) ?? 0) + 1);
      histogram.record(record.durationMs / 1000);
      if (outcome !== 'ok') errorsHistogram.record(record.durationMs / 1000);
    },
    result() {
      const total = durations.length;
      const sorted = Float64Array.from(durations).sort();
      const sum = durations.reduce((a, b) => a + b, 0);
      const latencyByBucket = bucketLatencies(durationsByBucket, options.originMs, options.bucketMs);
      return {
        timeline,
        byEnd,
        fine,
        latencyByBucket,
        total,
        byStatus,
        latency: {
          avgMs: total ? sum / total : NaN,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
        },
        fortio: {
          durations: histogram.export(FORTIO_PERCENTILES),
          errors: errorsHistogram.export(FORTIO_PERCENTILES),
        },
      };
    },
  };
}
