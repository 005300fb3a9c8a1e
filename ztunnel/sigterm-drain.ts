import { waitAtMost } from '../lib/index.ts';
import type { Clock } from '../lib/index.ts';
import type { InboundListeners, PodListeners } from './inbound/pod-listeners.ts';
import { readSocketQueues } from './telemetry/socket-queues.ts';
import { DRAIN_DEADLINE_REACHED } from './telemetry/log-messages.ts';
import type { ZtunnelOptions } from './ztunnel-options.ts';

export const DRAIN_CLOSE_REASON = 'connection closed due to connection drain';

/** What SIGTERM's drain closes: every pod's listeners and the node's, with the drain's settings. */
export interface DrainTarget {
  options: Pick<ZtunnelOptions, 'log' | 'clock' | 'drainDeadlineMs' | 'resetAtDeadline' | 'readCloseKinds'>;
  pods: ReadonlyMap<string, PodListeners>;
  /** The node-address listener, when in that mode. */
  shared: readonly InboundListeners[];
}

/**
 * SIGTERM behaviour (Ztunnel.drain): every listener stops accepting, the connections get until the
 * drain deadline to end, the rest are dropped; then their access-log lines get a moment to go out.
 */
export async function drainListeners(
  target: DrainTarget,
): Promise<{ forced: number; inFlight: number; waitedMs: number }> {
  const { log, clock } = target.options;
  const startMs = clock.now();
  for (const listeners of allListeners(target)) listeners.stopAccepting();
  log.info('drain started', { deadline_ms: target.options.drainDeadlineMs, connections: liveCount(target) });
  await waitAtMost(clock, allClosed(target), target.options.drainDeadlineMs);
  let dropped = { forced: 0, inFlight: 0 };
  if (liveCount(target) > 0) {
    // Upstream: "drain duration expired with pending connections, forcefully shutting down". The
    // harness turns this line into a drain-deadline event and reads its figures (every 503 of
    // the burst that follows is explained by them).
    log.info(DRAIN_DEADLINE_REACHED, {
      connections: liveCount(target),
      in_flight: allListeners(target).reduce((n, p) => n + p.tracker.inFlight(), 0),
      ...(target.options.readCloseKinds ? await readCloseKinds(target) : {}),
    });
    dropped = dropRemaining(target);
  }
  // Let the dropped connections' access-log lines out before the process exits.
  await waitAtMost(clock, allClosed(target), 1000);
  const waitedMs = clock.now() - startMs;
  log.info('drain complete', {
    forced: dropped.forced,
    in_flight: dropped.inFlight,
    waited_ms: Math.round(waitedMs),
  });
  return { ...dropped, waitedMs };
}

/** Every inbound listener set: the pods' and the node's. */
function allListeners(target: DrainTarget): InboundListeners[] {
  return [...target.pods.values(), ...target.shared];
}

function liveCount(target: DrainTarget): number {
  return allListeners(target).reduce((n, p) => n + p.tracker.size, 0);
}

function allClosed(target: DrainTarget): Promise<unknown> {
  return Promise.all(allListeners(target).map((p) => p.tracker.whenEmpty()));
}

/** The deadline's drop: every connection left, with FIN, or RST where unread data is left. */
function dropRemaining(target: DrainTarget): { forced: number; inFlight: number } {
  let forced = 0;
  let inFlight = 0;
  for (const listeners of allListeners(target)) {
    const dropped = listeners.destroy(DRAIN_CLOSE_REASON, target.options.resetAtDeadline === true);
    forced += dropped.connections;
    inFlight += dropped.inFlight;
  }
  return { forced, inFlight };
}

/** closeKinds of the connections left, with each pod namespace's socket table. */
function readCloseKinds(target: DrainTarget): Promise<Record<string, number>> {
  return closeKinds(
    allListeners(target).flatMap((p) => p.tracker.snapshot()),
    [...target.pods.values()].flatMap((p) => (p.socketTableDir ? [p.socketTableDir] : [])),
    target.options.clock,
  );
}

/**
 * How the deadline's close will reach each connection's peer, read from the kernel just before it
 * (socket-queues.ts): `on_unread` connections ride a socket with unread bytes, whose close() sends
 * RST; `in_flight_elsewhere` have data in flight on a socket that will get a FIN; `transport_unknown`
 * sockets are in no table read (outbound). Our namespace's table and each pod namespace's (in-pod
 * listeners with --netns). The read takes `queue_read_ms` (the loop keeps serving meanwhile), so
 * the split is as of just before: 35-107 ms before with --netns, when busy sockets may still be
 * read dry; the closes on the wire (harness: wire_fin/wire_rst) are the drop's own.
 */
async function closeKinds(
  connections: readonly { transport: string | undefined; inFlight: boolean }[],
  procDirs: readonly string[],
  clock: Clock,
): Promise<Record<string, number>> {
  const startMs = clock.now();
  const queues = await readSocketQueues(procDirs);
  let onUnread = 0;
  let inFlightElsewhere = 0;
  let unknown = 0;
  for (const c of connections) {
    if (!queues || c.transport === undefined || !queues.seen.has(c.transport)) unknown++;
    else if (queues.unread.has(c.transport)) onUnread++;
    else if (c.inFlight) inFlightElsewhere++;
  }
  return {
    on_unread: onUnread,
    in_flight_elsewhere: inFlightElsewhere,
    transport_unknown: unknown,
    queue_read_ms: Math.round(clock.now() - startMs),
  };
}
