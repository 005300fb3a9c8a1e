import type { Clock } from '../../lib/index.ts';

/**
 * Istio's echo server's shutdown, as TestServiceRestart relies on it (istio/istio
 * pkg/test/echo/cmd/server/main.go, WaitForShutdown and ReportRequest): after SIGTERM it keeps
 * serving; it stops one second after the last request, each request starting that second again, and
 * at the latest ten seconds after SIGTERM, or at once on a second signal.
 */
export const ECHO_DRAIN = { quietMs: 1000, maxMs: 10_000 } as const;

/** Why the drain ended, as echo logs it: `Shutdown complete`, `Shutdown after 10s ...`, `Shutdown forced`. */
export type EchoDrainEnd = 'quiet' | 'max' | 'forced';

/**
 * Waits out the drain that began at `clock.now()`: until `quietMs` passed with no request (the latest
 * request's time from `lastRequestMs`), `maxMs` passed, or `forced` aborts (the second signal).
 */
export async function echoDrain(options: {
  clock: Clock;
  lastRequestMs: () => number | undefined;
  forced: AbortSignal;
  quietMs?: number;
  maxMs?: number;
}): Promise<EchoDrainEnd> {
  const { clock, forced } = options;
  const quietMs = options.quietMs ?? ECHO_DRAIN.quietMs;
  const startMs = clock.now();
  const maxAtMs = startMs + (options.maxMs ?? ECHO_DRAIN.maxMs);
  for (;;) {
    const quietAtMs = Math.max(startMs, options.lastRequestMs() ?? startMs) + quietMs;
    const now = clock.now();
    if (now >= maxAtMs) return 'max';
    if (now >= quietAtMs) return 'quiet';
    try {
      await clock.sleep(Math.min(quietAtMs, maxAtMs) - now, forced);
    } catch {
      return 'forced';
    }
  }
}
