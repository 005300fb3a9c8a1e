import { setTimeout as delay } from 'node:timers/promises';

/**
 * The run's single monotonic timeline. Events, timeline buckets and k6 samples are all placed on it;
 * the wall-clock offset is recorded once, so wall timestamps from other processes (k6 writes Unix
 * times) convert onto it with `fromWallMs`.
 */
export interface Clock {
  /** Monotonic milliseconds (fractional), never going back. */
  now(): number;
  /** Resolves after `ms` on this clock; rejects with `signal.reason` when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Unix milliseconds at monotonic 0: `wall = now() + wallOffsetMs`. Fixed for the clock's life. */
  readonly wallOffsetMs: number;
}

export function toWallMs(clock: Clock, monotonicMs: number): number {
  return monotonicMs + clock.wallOffsetMs;
}

export function fromWallMs(clock: Clock, wallMs: number): number {
  return wallMs - clock.wallOffsetMs;
}

/** The process's clock: `performance.now()`, with the wall offset taken once at creation. */
export function createSystemClock(): Clock {
  const wallOffsetMs = Date.now() - performance.now();
  return {
    now: () => performance.now(),
    sleep: async (ms, signal) => {
      try {
        await delay(Math.max(0, ms), undefined, signal ? { signal } : {});
      } catch (err) {
        // timers/promises rejects with an AbortError wrapping the reason; callers expect the reason.
        throw signal?.aborted ? (signal.reason as Error) : err;
      }
    },
    wallOffsetMs,
  };
}

interface Timer {
  dueMs: number;
  seq: number;
  resolve: () => void;
}

/** A clock that moves only when told to. Tests drive it with `advance` instead of sleeping. */
export interface ManualClock extends Clock {
  /** Moves time forward, resolving due sleeps in order; awaits between them so chained work runs. */
  advance(ms: number): Promise<void>;
  /** Sleeps not yet due. */
  pendingCount(): number;
}

export function createManualClock(options: { startMs?: number; wallOffsetMs?: number } = {}): ManualClock {
  let nowMs = options.startMs ?? 0;
  let seq = 0;
  const timers: Timer[] = [];

  const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const timer: Timer = { dueMs: nowMs + Math.max(0, ms), seq: seq++, resolve };
      timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          const i = timers.indexOf(timer);
          if (i >= 0) timers.splice(i, 1);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  };

  const advance = async (ms: number): Promise<void> => {
    const targetMs = nowMs + ms;
    for (;;) {
      timers.sort((a, b) => a.dueMs - b.dueMs || a.seq - b.seq);
      const next = timers[0];
      if (!next || next.dueMs > targetMs) break;
      timers.shift();
      nowMs = next.dueMs;
      next.resolve();
      // Let the sleeper's continuation run (and perhaps schedule more sleeps) before going on.
      await new Promise<void>((r) => setImmediate(r));
    }
    nowMs = targetMs;
  };

  return {
    now: () => nowMs,
    sleep,
    advance,
    pendingCount: () => timers.length,
    wallOffsetMs: options.wallOffsetMs ?? 1_700_000_000_000,
  };
}

/**
 * Waits for `work` for at most `ms` on `clock`: `{ done: true, value }` if it settled first,
 * `{ done: false }` otherwise. The clock's timer is cancelled either way, so nothing is left pending.
 */
export async function waitAtMost<T>(
  clock: Clock,
  work: Promise<T>,
  ms: number,
): Promise<{ done: true; value: T } | { done: false }> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      work.then((value) => ({ done: true as const, value })),
      clock.sleep(ms, timer.signal).then(
        () => ({ done: false as const }),
        // Only our own cancellation rejects this sleep, and only after the race is decided.
        () => ({ done: false as const }),
      ),
    ]);
  } finally {
    timer.abort();
  }
}
