import { fromWallMs } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { RequestRecord } from '../load/index.ts';
import { classifyRecord } from './classify.ts';
import { createTimeline } from './timeline.ts';
import type { Timeline } from './timeline.ts';

export interface RecordTally {
  timeline: Timeline;
  total: number;
  byStatus: Map<number, number>;
  latency: { avgMs: number; p50Ms: number; p99Ms: number };
}

export interface RecordTallySink {
  /** One k6 record (pass as runLoad's `onRecord`, so the records file is read once). */
  add(record: RequestRecord): void;
  result(): RecordTally;
}

const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);

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
  const durations: number[] = [];
  const byStatus = new Map<number, number>();
  return {
    add(record) {
      timeline.add(fromWallMs(options.clock, record.startWallMs), classifyRecord(record, options.isOk));
      durations.push(record.durationMs);
      byStatus.set(record.status, (byStatus.get(record.status) ?? 0) + 1);
    },
    result() {
      const total = durations.length;
      const sorted = Float64Array.from(durations).sort();
      const sum = durations.reduce((a, b) => a + b, 0);
      return {
        timeline,
        total,
        byStatus,
        latency: {
          avgMs: total ? sum / total : NaN,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
        },
      };
    },
  };
}
