// The first connect of a mesh process (ztunnel's discovery subscription, a certificate from the CA,
// istiod's root ConfigMap), retried with bounded exponential backoff instead of exiting on the first
// refusal: on a fresh cluster istiod's Service, its endpoints or cluster DNS can lag the pods that
// dial them by seconds. Real proxies retry too: ztunnel's xDS client doubles its wait from 10 ms up
// to 15 s and its certificate manager from 1 s up to 150 s, both without end (istio/ztunnel
// src/xds/client.rs INITIAL_BACKOFF / MAX_BACKOFF, src/identity/manager.rs); pilot-agent retries a
// CSR 5 times from 100 ms doubling, and only on transient gRPC codes (istio/istio
// pkg/security/retry.go CARetryOptions: Unavailable, Internal, DeadlineExceeded, ResourceExhausted,
// Aborted, Canceled; never Unauthenticated or PermissionDenied). Here a refusal (a 4xx) fails at
// once, and the retries stop after a bounded total time so that a cluster that never recovers ends
// in a container restart with the reason in its log, not a silent wait.
import type { Clock } from '../lib/index.ts';

export interface BackoffPolicy {
  /** The wait after the first failure; each next wait doubles. */
  initialMs: number;
  /** The longest single wait. */
  maxMs: number;
  /** No retry starts later than this after the first attempt began: the error is thrown instead. */
  giveUpAfterMs: number;
}

/**
 * 100 ms (pilot-agent's first CSR retry) doubling to 5 s, for at most 60 s: about 17 attempts. The
 * 5 s cap (ztunnel's xDS cap is 15 s) bounds how late a recovered istiod is noticed; 60 s outlasts a
 * CoreDNS or kube-proxy start on a fresh kind node and still leaves the kubelet's restart (10 s
 * CrashLoopBackOff first step) inside the kind backend's 300 s readiness wait.
 */
export const STARTUP_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5_000, giveUpAfterMs: 60_000 };

/** Socket and DNS errors a starting cluster produces for a while and then stops producing. */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** True for a connection-level failure (`err.code`, or its cause's) that may pass on its own. */
export function isTransientNetworkError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** An HTTP status worth retrying: 5xx (the server failed) and 429 (it asked us to come back). */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

/** The start-up step failed for good: `refused` (not retried) or `gave-up` (retried until the limit). */
export class StartupError extends Error {
  readonly code: 'STARTUP_REFUSED' | 'STARTUP_GAVE_UP';
  readonly attempts: number;
  constructor(code: StartupError['code'], message: string, options: { attempts: number; cause: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'StartupError';
    this.code = code;
    this.attempts = options.attempts;
  }
}

export interface StartupFailure {
  /** 1 for the first attempt. */
  attempt: number;
  error: unknown;
  /** The error in one line (`describe`'s). */
  reason: string;
  /** The wait before the next attempt. */
  retryInMs: number;
}

export interface RetryStartupOptions<T> {
  /** What is being done, for messages: `discovery connect to istiod.istio-system.svc:15010`. */
  what: string;
  attempt(): Promise<T>;
  /** Whether a failure may pass by itself; anything else fails at once. */
  isTransient(err: unknown): boolean;
  /** A failure in one line for messages (default describeError). */
  describe?(err: unknown): string;
  clock: Clock;
  policy?: BackoffPolicy;
  /** Each failure that will be retried, with its reason (the caller logs it). */
  onRetry?(failure: StartupFailure): void;
  signal?: AbortSignal;
}

/**
 * The failure's reason in one line. Node's connect to a name with several addresses rejects with an
 * AggregateError whose own message is empty; its parts carry the reasons.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.message) return err.message;
  if (err instanceof AggregateError && err.errors.length > 0)
    return err.errors.map((e: unknown) => describeError(e)).join('; ');
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : err.name;
}

/** Runs `attempt` until it resolves, a failure is not transient, or the policy's time is spent. */
export async function retryStartup<T>(options: RetryStartupOptions<T>): Promise<T> {
  const { clock, what } = options;
  const policy = options.policy ?? STARTUP_BACKOFF;
  const startMs = clock.now();
  let waitMs = policy.initialMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await options.attempt();
    } catch (err) {
      const reason = (options.describe ?? describeError)(err);
      if (!options.isTransient(err))
        throw new StartupError('STARTUP_REFUSED', `${what} failed (not retried): ${reason}`, {
          attempts: attempt,
          cause: err,
        });
      const elapsedMs = clock.now() - startMs;
      if (elapsedMs + waitMs > policy.giveUpAfterMs)
        throw new StartupError(
          'STARTUP_GAVE_UP',
          `${what} still failing after ${String(attempt)} attempts in ${(elapsedMs / 1000).toFixed(1)} s ` +
            `(retries stop at ${String(policy.giveUpAfterMs / 1000)} s); last error: ${reason}`,
          { attempts: attempt, cause: err },
        );
      options.onRetry?.({ attempt, error: err, reason, retryInMs: waitMs });
      await clock.sleep(waitMs, options.signal);
      waitMs = Math.min(waitMs * 2, policy.maxMs);
    }
  }
}
