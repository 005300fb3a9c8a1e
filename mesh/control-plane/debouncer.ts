import type { Clock } from '../../lib/index.ts';

export interface Debouncer {
  /** A config event: starts or extends the debounce window. */
  trigger(): void;
  /** Resolves once no push is pending or running. */
  idle(): Promise<void>;
  close(): void;
}

/**
 * istiod's push debounce (pilot/pkg/xds/discovery.go `debounce`): after an event, wait until no new
 * event for `quietMs` (PILOT_DEBOUNCE_AFTER, 100 ms) or until `maxMs` since the first one
 * (PILOT_DEBOUNCE_MAX, 10 s), then push; one push in flight at a time, events arriving meanwhile
 * start the next window, pushed when the current push is done.
 */
export function createDebouncer(options: {
  clock: Clock;
  quietMs: number;
  maxMs: number;
  push: () => Promise<void>;
  onError: (err: unknown) => void;
}): Debouncer {
  const { clock } = options;
  let pending = false;
  let firstMs = 0;
  let lastMs = 0;
  let pushing: Promise<void> | undefined;
  let timerArmed = false;
  const stop = new AbortController();
  let idleWaiters: (() => void)[] = [];

  const settleIdle = (): void => {
    if (pending || pushing) return;
    for (const wake of idleWaiters) wake();
    idleWaiters = [];
  };
  const arm = (ms: number): void => {
    if (timerArmed || stop.signal.aborted) return;
    timerArmed = true;
    clock.sleep(ms, stop.signal).then(
      () => {
        timerArmed = false;
        evaluate();
      },
      () => undefined, // closed: the window is abandoned on purpose
    );
  };
  const evaluate = (): void => {
    if (!pending || pushing || stop.signal.aborted) return;
    const now = clock.now();
    const quiet = now - lastMs;
    if (quiet >= options.quietMs || now - firstMs >= options.maxMs) {
      pending = false;
      pushing = options
        .push()
        .catch(options.onError)
        .finally(() => {
          pushing = undefined;
          evaluate();
          settleIdle();
        });
    } else {
      arm(Math.min(options.quietMs - quiet, options.maxMs - (now - firstMs)));
    }
  };

  return {
    trigger() {
      lastMs = clock.now();
      if (!pending) {
        pending = true;
        firstMs = lastMs;
      }
      arm(options.quietMs);
    },
    idle: () =>
      new Promise((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      }),
    close() {
      stop.abort();
    },
  };
}
