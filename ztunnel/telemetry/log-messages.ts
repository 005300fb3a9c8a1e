// The lines of ztunnel's log that others read, as data: the local backend turns them into lifecycle
// events (clusters/local/images.ts), so renaming one here renames what is matched there.

/**
 * Logged when the drain deadline drops the connections still open, with their figures (connections,
 * in_flight, ...). Upstream's line (src/drain.rs run_with_drain): "drain duration expired with
 * pending connections, forcefully shutting down".
 */
export const DRAIN_DEADLINE_REACHED = 'drain deadline reached';
