// ztunnel's discovery does not end with its first stream. When istiod drops it (a restart, an
// upgrade, MaxConnectionAge, a network blip), istio/ztunnel keeps serving from the state it holds,
// reconnects and resumes: the new stream's first request echoes what it holds
// (`initial_resource_versions`), and istiod's first answer re-sends what changed and removes what is
// gone (istio/ztunnel src/xds/client.rs run(), run_loop(), run_internal() at 62d8265; istio/istio
// pilot/pkg/xds/delta.go deltaWatchedResources). Its waits: 10 ms after a stream that was up,
// doubling while attempts fail, to 15 s (INITIAL_BACKOFF / MAX_BACKOFF), without end. The same loop
// serves both our protocols: each stream fills the one DiscoveryState the data plane reads.
import type { Clock } from '../../lib/index.ts';
import { describeError } from '../startup-retry.ts';
import type { DiscoveryClient } from './discovery-client.ts';

/** client.rs INITIAL_BACKOFF and MAX_BACKOFF. */
export const RESUBSCRIBE_BACKOFF = { initialMs: 10, maxMs: 15_000 } as const;

export interface StaySubscribedOptions {
  /** The first stream, synced. */
  first: DiscoveryClient;
  /** Opens the next stream on the same state (resuming from what it holds). */
  reopen(): Promise<DiscoveryClient>;
  clock: Clock;
  /** A stream ended or an attempt failed: the next attempt starts in `retryInMs`. */
  onDropped?(event: { reason: string; attempt: number; retryInMs: number }): void;
  /** A new stream has applied its first answer, `downMs` after the last one ended. */
  onResumed?(event: { attempts: number; downMs: number; streams: number }): void;
}

/** One subscription for the life of the process: the first stream, then each one after a drop. */
export function staySubscribed(options: StaySubscribedOptions): DiscoveryClient & { streams(): number } {
  const { clock } = options;
  let current = options.first;
  let streams = 1;
  const stop = new AbortController();
  const closed = (): boolean => stop.signal.aborted;
  const done = Promise.withResolvers<string>();

  const resume = async (): Promise<void> => {
    for (;;) {
      let reason = await current.ended;
      if (closed()) return;
      current.close(); // what the ended stream still holds (a gRPC channel)
      const downAt = clock.now();
      for (let attempt = 1, waitMs: number = RESUBSCRIBE_BACKOFF.initialMs; ; attempt++) {
        options.onDropped?.({ reason, attempt, retryInMs: waitMs });
        await clock.sleep(waitMs, stop.signal);
        try {
          const next = await options.reopen();
          if (closed()) {
            next.close();
            return;
          }
          try {
            await next.synced;
          } catch (err) {
            next.close();
            throw err;
          }
          current = next;
          streams++;
          options.onResumed?.({ attempts: attempt, downMs: clock.now() - downAt, streams });
          break;
        } catch (err) {
          if (closed()) return;
          reason = describeError(err);
          waitMs = Math.min(waitMs * 2, RESUBSCRIBE_BACKOFF.maxMs);
        }
      }
    }
  };
  void resume()
    .catch(() => undefined)
    .finally(() => {
      done.resolve('closed');
    });

  return {
    state: options.first.state,
    synced: options.first.synced,
    ended: done.promise,
    streams: () => streams,
    close: () => {
      stop.abort(new Error('closed'));
      current.close();
    },
  };
}
