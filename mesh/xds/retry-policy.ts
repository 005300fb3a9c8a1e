import { extension, duration, wrapped } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';
import { checkRetryOn } from './route-policy.ts';

/** A route's retries as Istio's VirtualService `retries` sets them (attempts, retryOn, perTryTimeout). */
export interface RetrySettings {
  /** 0 disables retries. */
  attempts: number;
  retryOn: string;
  perTryTimeoutMs?: number;
}

/**
 * Istio's route retry policy (pilot/pkg/networking/core/route/retry/retry.go ConvertPolicy /
 * DefaultPolicy): attempts 0 is no policy; status codes in retryOn become retriable_status_codes
 * with `retriable-status-codes` added; previous_hosts and 5 host selection attempts always.
 */
export function retryPolicy(retries: RetrySettings): ProtoObject | undefined {
  if (retries.attempts === 0) return undefined; // attempts: 0 disables retries (nil policy)
  const conditions = checkRetryOn(retries.retryOn);
  const codes = conditions.filter((c) => /^\d{3}$/.test(c)).map(Number);
  const named = conditions.filter((c) => !/^\d{3}$/.test(c));
  if (codes.length && !named.includes('retriable-status-codes')) named.push('retriable-status-codes');
  return {
    retry_on: named.join(','),
    num_retries: wrapped(retries.attempts),
    ...(codes.length ? { retriable_status_codes: codes } : {}),
    ...(retries.perTryTimeoutMs === undefined ? {} : { per_try_timeout: duration(retries.perTryTimeoutMs) }),
    retry_host_predicate: [
      extension(
        'envoy.retry_host_predicates.previous_hosts',
        'envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate',
      ),
    ],
    host_selection_retry_max_attempts: '5',
  };
}
