// A live run's lease on its namespace: every RENEW_EVERY_MS the expiry annotation is moved LEASE_MS
// ahead, so `cleanup` leaves a running run's namespace alone and takes a killed run's once its last
// renewal has lapsed. A renewal that fails is told and the next one tried: the run goes on.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../lib/index.ts';
import { apiErrorLine } from './cluster-flags.ts';
import { renewLease } from './owned-namespaces.ts';
import { expiryAt, RENEW_EVERY_MS } from './run-ownership.ts';

export interface RunLease {
  /** No more renewals (the namespace is being deleted); waits for one in flight. */
  stop(): Promise<void>;
}

export function startRunLease(options: {
  kc: KubeConfig;
  namespace: string;
  clock: Clock;
  onLogs?: ((text: string) => void) | undefined;
  /** Default RENEW_EVERY_MS; a real-time interval (the clock gives the expiry's time, not the period). */
  everyMs?: number;
}): RunLease {
  const { kc, namespace, clock } = options;
  const everyMs = options.everyMs ?? RENEW_EVERY_MS;
  let inFlight: Promise<void> = Promise.resolve();
  const renew = (): void => {
    inFlight = renewLease(kc, namespace, expiryAt(clock.now() + clock.wallOffsetMs)).catch((err: unknown) => {
      options.onLogs?.(
        `cluster: the lease on namespace ${namespace} was not renewed: ${apiErrorLine(err)}; tried again in ${String(everyMs / 1000)} s\n`,
      );
    });
  };
  const timer = setInterval(renew, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
