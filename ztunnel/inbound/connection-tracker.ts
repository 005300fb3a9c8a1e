/** What drain and DelWorkload can do to a live connection. */
export interface TrackedConnection {
  /** Abrupt close: RST for TCP, RST_STREAM for an HBONE stream. */
  forceClose(reason: string): void;
}

/**
 * The live connections of one owner (a pod's listeners, or the whole ztunnel): drain waits for it to
 * empty, and force-closes what is left at the deadline.
 */
export interface ConnectionTracker {
  add(conn: TrackedConnection): () => void;
  readonly size: number;
  /** Resolves when no connection is left (at once if none). */
  whenEmpty(): Promise<void>;
  forceCloseAll(reason: string): number;
}

export function createConnectionTracker(): ConnectionTracker {
  const live = new Set<TrackedConnection>();
  let waiters: (() => void)[] = [];
  const settle = (): void => {
    if (live.size > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  return {
    add(conn) {
      live.add(conn);
      return () => {
        if (live.delete(conn)) settle();
      };
    },
    get size() {
      return live.size;
    },
    whenEmpty() {
      if (live.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    forceCloseAll(reason) {
      const all = [...live];
      for (const conn of all) conn.forceClose(reason);
      return all.length;
    },
  };
}
