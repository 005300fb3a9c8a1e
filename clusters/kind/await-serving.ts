import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';

/** Consecutive 200s that count as serving: one could be a pod the next push takes away. */
const IN_A_ROW = 3;
const INTERVAL_MS = 200;
const REQUEST_TIMEOUT_MS = 2000;

/**
 * Resolves once `url` answers 200 three times in a row: on kind, pods Ready in the API are not yet
 * endpoints the gateway has from istiod's push, and k6 must not start before requests get through.
 * Rejects at `deadlineMs` (on `clock`) with the last answer or error, or when `signal` aborts.
 */
export async function awaitServing(options: {
  url: string;
  clock: Clock;
  deadlineMs: number;
  signal?: AbortSignal;
}): Promise<void> {
  const { clock, url } = options;
  let inARow = 0;
  let last = 'no answer yet';
  while (inARow < IN_A_ROW) {
    options.signal?.throwIfAborted();
    if (clock.now() > options.deadlineMs)
      throw new HarnessError(
        ErrorCode.ComponentFailed,
        `${url} did not answer 200 ${String(IN_A_ROW)} times in a row before the ready timeout (last: ${last}); check the gateway and istiod pods with kubectl`,
      );
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await res.arrayBuffer();
      last = `HTTP ${String(res.status)} ${res.headers.get('x-response-flags') ?? ''}`.trim();
      inARow = res.status === 200 ? inARow + 1 : 0;
    } catch (err) {
      last =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      inARow = 0;
    }
    if (inARow < IN_A_ROW) await clock.sleep(INTERVAL_MS, options.signal);
  }
}
