/** What drain and DelWorkload can do to, and know about, a live connection. */
export interface TrackedConnection {
  /**
   * Ends it as upstream's force_shutdown does: the connection's task is dropped, which close()s its
   * sockets (istio/ztunnel src/drain.rs `run_with_drain`, src/proxy/inbound_passthrough.rs). There is
   * no SO_LINGER in istio/ztunnel, so the kernel sends a FIN, or a RST where unread data is left in a
   * socket; an HBONE stream gets no RST_STREAM, its connection is dropped whole.
   */
  drop(reason: string): void;
  /** Like drop, but nothing reaches the downstream peer: its socket stops reading and stays open. */
  freeze(reason: string): void;
  /**
   * Bytes from the downstream not yet answered by bytes from the other side, or a connection still
   * being set up: the L4 view of a request in flight.
   */
  hasDataInFlight(): boolean;
  /**
   * The TCP socket carrying it, as socket-queues.ts keys it (`local|remote`): an HBONE stream's is
   * its HTTP/2 connection's. Undefined where not known (outbound capture).
   */
  transport?(): string | undefined;
}

export interface DropCounts {
  connections: number;
  /** Of those, how many had data in flight when dropped. */
  inFlight: number;
}

/**
 * The live connections of one owner (a pod's listeners, or the whole ztunnel): drain waits for it to
 * empty, and drops what is left at the deadline.
 */
export interface ConnectionTracker {
  add(conn: TrackedConnection): () => void;
  readonly size: number;
  /** How many live connections have data in flight now. */
  inFlight(): number;
  /** Resolves when no connection is left (at once if none). */
  whenEmpty(): Promise<void>;
  dropAll(reason: string): DropCounts;
  freezeAll(reason: string): DropCounts;
  /** Each live connection's transport socket and whether it has data in flight, as of now. */
  snapshot(): { transport: string | undefined; inFlight: boolean }[];
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
  const inFlight = (): number => [...live].filter((c) => c.hasDataInFlight()).length;
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
    inFlight,
    whenEmpty() {
      if (live.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    dropAll(reason) {
      const all = [...live];
      const counts = { connections: all.length, inFlight: inFlight() };
      for (const conn of all) conn.drop(reason);
      return counts;
    },
    snapshot() {
      return [...live].map((c) => ({ transport: c.transport?.(), inFlight: c.hasDataInFlight() }));
    },
    freezeAll(reason) {
      const all = [...live];
      const counts = { connections: all.length, inFlight: inFlight() };
      for (const conn of all) conn.freeze(reason);
      return counts;
    },
  };
}
