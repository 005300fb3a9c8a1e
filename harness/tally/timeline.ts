import type { OutcomeClass } from './classify.ts';
import { OUTCOME_CLASSES } from './classify.ts';

/** Counts per outcome class in fixed buckets by request start, on the run's monotonic clock. */
export interface Timeline {
  bucketMs: number;
  /** Monotonic ms of bucket 0's start. */
  originMs: number;
  add(startMs: number, outcome: OutcomeClass): void;
  buckets(): { startMs: number; counts: Record<OutcomeClass, number> }[];
  totals(): Record<OutcomeClass, number>;
}

const zero = (): Record<OutcomeClass, number> =>
  Object.fromEntries(OUTCOME_CLASSES.map((c) => [c, 0])) as Record<OutcomeClass, number>;

export function createTimeline(options: { bucketMs: number; originMs: number }): Timeline {
  const rows = new Map<number, Record<OutcomeClass, number>>();
  return {
    bucketMs: options.bucketMs,
    originMs: options.originMs,
    add(startMs, outcome) {
      const index = Math.floor((startMs - options.originMs) / options.bucketMs);
      let row = rows.get(index);
      if (!row) {
        row = zero();
        rows.set(index, row);
      }
      row[outcome]++;
    },
    buckets() {
      if (rows.size === 0) return [];
      const indexes = [...rows.keys()];
      const first = Math.min(...indexes);
      const last = Math.max(...indexes);
      return Array.from({ length: last - first + 1 }, (_, i) => ({
        startMs: options.originMs + (first + i) * options.bucketMs,
        counts: rows.get(first + i) ?? zero(),
      }));
    },
    totals() {
      const total = zero();
      for (const row of rows.values()) for (const c of OUTCOME_CLASSES) total[c] += row[c];
      return total;
    },
  };
}
