// Waiting on what a test can observe (a peer's sessions, an app's requests, a proxy's log lines)
// instead of sleeping: each source says when it changed, and the waiter re-checks then.

/** Something that says when its state changed. */
export interface Observable {
  onChange: (listener: () => void) => () => void;
}

/** A change signal for a test double's state. */
export function createChanges(): Observable & { notify: () => void } {
  const listeners = new Set<() => void>();
  return {
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify: () => {
      for (const l of [...listeners]) l();
    },
  };
}

/**
 * Resolves with `check()`'s first value other than undefined, checked now and after every change of
 * `sources`; rejects naming `what` when `timeoutMs` passes first (a bound, not a synchronisation).
 */
export function waitFor<T>(
  sources: Observable | readonly Observable[],
  what: string,
  check: () => T | undefined,
  timeoutMs = 5000,
): Promise<T> {
  const now = check();
  if (now !== undefined) return Promise.resolve(now);
  return new Promise<T>((resolve, reject) => {
    const unsubscribe: (() => void)[] = [];
    const finish = (): void => {
      clearTimeout(timer);
      for (const u of unsubscribe) u();
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${what}: not within ${String(timeoutMs)} ms`));
    }, timeoutMs);
    for (const source of Array.isArray(sources) ? sources : [sources])
      unsubscribe.push(
        (source as Observable).onChange(() => {
          const value = check();
          if (value === undefined) return;
          finish();
          resolve(value);
        }),
      );
  });
}
