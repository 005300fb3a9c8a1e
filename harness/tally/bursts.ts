import type { OutcomeClass } from './classify.ts';
import { OUTCOME_CLASSES } from './classify.ts';

export interface Burst {
  startMs: number;
  durationMs: number;
  failures: number;
  /** The lifecycle event before the burst it is attributed to, when there is one. */
  cause?: { atMs: number; kind: string; object: string };
}

/**
 * Contiguous buckets with at least one failure form one burst (docs/architecture.md, Load and tally), attributed to
 * the latest lifecycle event before the end of its first bucket (an event inside that bucket can
 * still be its cause: buckets are coarser than events), or to a ztunnel drain deadline that falls
 * inside the burst.
 */
export function findBursts(
  buckets: { startMs: number; counts: Record<OutcomeClass, number> }[],
  bucketMs: number,
  events: readonly { atMs: number; kind: string; object: string }[],
): Burst[] {
  const failuresIn = (counts: Record<OutcomeClass, number>): number =>
    OUTCOME_CLASSES.filter((c) => c !== 'ok').reduce((n, c) => n + counts[c], 0);
  const bursts: Burst[] = [];
  let open: Burst | undefined;
  for (const bucket of buckets) {
    const failures = failuresIn(bucket.counts);
    if (failures === 0) {
      open = undefined;
      continue;
    }
    if (!open) {
      open = { startMs: bucket.startMs, durationMs: 0, failures: 0 };
      bursts.push(open);
    }
    open.durationMs = bucket.startMs + bucketMs - open.startMs;
    open.failures += failures;
  }
  const sorted = [...events].sort((a, b) => a.atMs - b.atMs);
  for (const burst of bursts) {
    // Buckets hold requests by start time, so requests cut at a drain deadline started up to a
    // request's duration before it: a deadline inside the burst is its cause.
    const deadline = sorted.find(
      (e) =>
        e.kind === 'drain-deadline' && e.atMs >= burst.startMs && e.atMs <= burst.startMs + burst.durationMs,
    );
    const cause = deadline ?? sorted.filter((e) => e.atMs <= burst.startMs + bucketMs).at(-1);
    if (cause) burst.cause = { atMs: cause.atMs, kind: cause.kind, object: cause.object };
  }
  return bursts;
}
