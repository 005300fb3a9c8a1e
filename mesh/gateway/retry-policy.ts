/**
 * Envoy's route retry policy, as far as the gateway needs it. Istio's default for every HTTP route
 * (pilot/pkg/networking/core/route/retry): 2 retries on
 * connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes, host predicate
 * previous_hosts, no retriable status code, and not `reset`.
 */
export interface RetryPolicy {
  numRetries: number;
  retryOn: ReadonlySet<string>;
  retriableStatusCodes: ReadonlySet<number>;
}

export const ISTIO_DEFAULT_RETRY_ON =
  'connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes';
const KNOWN = new Set([
  '5xx',
  'gateway-error',
  'reset',
  'connect-failure',
  'retriable-4xx',
  'refused-stream',
  'retriable-status-codes',
  'unavailable',
  'cancelled',
]);

export function parseRetryPolicy(options: {
  numRetries: number;
  retryOn: string;
  retriableStatusCodes?: number[];
}): RetryPolicy {
  const retryOn = new Set(
    options.retryOn
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  for (const condition of retryOn)
    if (!KNOWN.has(condition))
      throw new Error(
        `unknown retry_on condition ${JSON.stringify(condition)} (known: ${[...KNOWN].join(', ')})`,
      );
  if (!Number.isInteger(options.numRetries) || options.numRetries < 0)
    throw new Error(`num_retries must be a non-negative integer, got ${String(options.numRetries)}`);
  return {
    numRetries: options.numRetries,
    retryOn,
    retriableStatusCodes: new Set(options.retriableStatusCodes ?? []),
  };
}

/** What an attempt ended with, as the router sees it. */
export type AttemptOutcome =
  | { kind: 'response'; status: number }
  /** TCP connect (or the HBONE connection) failed. */
  | { kind: 'connect-failure' }
  /** The upstream connection was reset or closed before response headers (incl. a CONNECT refused by ztunnel). */
  | { kind: 'reset' };

/** Envoy RetryStateImpl::shouldRetry for the conditions above. */
export function isRetriable(policy: RetryPolicy, outcome: AttemptOutcome): boolean {
  const on = policy.retryOn;
  if (outcome.kind === 'connect-failure')
    return on.has('connect-failure') || on.has('5xx') || on.has('gateway-error') || on.has('reset');
  if (outcome.kind === 'reset') return on.has('reset') || on.has('5xx') || on.has('gateway-error');
  const { status } = outcome;
  if (on.has('5xx') && status >= 500) return true;
  if (on.has('gateway-error') && (status === 502 || status === 503 || status === 504)) return true;
  if (on.has('retriable-4xx') && status === 409) return true;
  return on.has('retriable-status-codes') && policy.retriableStatusCodes.has(status);
}

/** Envoy's default back-off: fully jittered exponential, base 25 ms, cap 250 ms. */
export function retryBackoffMs(retry: number, random: () => number = Math.random): number {
  return random() * Math.min(25 * 2 ** (retry - 1), 250);
}
