import { ErrorCode, HarnessError, waitAtMost } from '../lib/index.ts';
import type { Clock } from '../lib/index.ts';

/**
 * Resolves with `check()`'s value once it is defined, re-checking after every change `events` reports
 * (lifecycle events on the local backend, watch updates on kind);
 * rejects with a HarnessError after `timeoutMs` or when `signal` aborts.
 */
export async function waitForEvent<T>(options: {
  events: { on(listener: () => void): () => void };
  clock: Clock;
  check: () => T | undefined;
  timeoutMs: number;
  what: string;
  signal?: AbortSignal;
}): Promise<T> {
  const found = Promise.withResolvers<T>();
  const test = (): void => {
    const value = options.check();
    if (value !== undefined) found.resolve(value);
  };
  const off = options.events.on(test);
  const onAbort = (): void => {
    found.reject(options.signal?.reason as Error);
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    test();
    const result = await waitAtMost(options.clock, found.promise, options.timeoutMs);
    if (!result.done)
      throw new HarnessError(
        ErrorCode.ComponentFailed,
        `timed out after ${String(options.timeoutMs)} ms waiting for ${options.what}`,
      );
    return result.value;
  } finally {
    off();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
