import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import type { CpuSample } from '../observe/cpu-monitor.ts';
import { poissonInterval } from './poisson.ts';

/** How the old ztunnel's close reached its connections, from its deadline line (ztunnel.ts closeKinds). */
export interface CloseKinds {
  /** Connections on a socket with unread bytes: its close() sends RST. */
  onUnread: number;
  /** In flight on a socket closed with a FIN. */
  inFlightElsewhere: number;
  /** Sockets not found in ztunnel's namespace's table. */
  unknown: number;
}

/** An access-log entry on the run's clock (its wall start less the run's wall offset). */
export interface TimedEntry {
  startMs: number;
  entry: ParsedAccessLog;
}

/**
 * E1's count at one drain deadline, accounted for by the mechanism: at the deadline the old ztunnel
 * closes its N connections; a request is lost if it is past the gateway on one of them (written,
 * response not yet read) or is written onto one before the gateway has seen it close. So
 *   count ~ rate_old x (T_past + L)
 * rate_old: requests per second on the connections the deadline closed (before it); T_past: the
 * mean time those requests spent past the gateway (Envoy's first byte upstream to the response's
 * first byte, COMMON_DURATION in its access log); L: the gateway's mean delay in seeing a closed
 * connection close (the last failed request it still wrote onto it, from the deadline; 0 when it
 * wrote none). The count is Poisson around the prediction even when the mechanism is right.
 *
 * The run states two bounds: RST-like, rate_old x (T_past + L), every request past Envoy's router
 * on those connections lost; FIN-like, in_flight + rate_old x L, only ztunnel's own in-flight (its
 * deadline line) and what is written after the drop. A count is inside when it lies in [Poisson low
 * of the second, Poisson high of the first]. Measured (2026-11-24, findings 2026-11-24-e1-repeats):
 * ztunnel's close is a FIN on 97-100 % of the connections (closeKinds: its sockets' unread bytes
 * just before the drop), yet counts sit near the first bound: the lost requests are inside Envoy's
 * own HBONE path and buffers, which a FIN loses as surely as a RST once Envoy resets the streams of
 * the HTTP/2 connection that ended.
 */
export interface DeadlineAccount {
  /** The failed requests attributed to this deadline. */
  count: number;
  /** Upstream connections the deadline closed (seen in the log: used before it, never after). */
  closedConnections: number;
  ratePerS: number;
  pastGatewayMs: number;
  reactionMs: number;
  /** The old ztunnel's own count of requests inside it at the deadline (its log line), if known. */
  inFlightInside?: number;
  /** RST regime: rate x (T_past + L). */
  predicted: number;
  /** FIN regime: in_flight + rate x L (equals `predicted` without the in_flight figure). */
  predictedFin: number;
  /** From the FIN prediction's 2.5 % Poisson quantile to the RST prediction's 97.5 %. */
  interval: [number, number];
  inside: boolean;
  /**
   * How the old ztunnel's close reached its connections, read by ztunnel just before the drop:
   * the share riding a socket with unread bytes (close() sends RST there, FIN elsewhere) and the
   * requests inside ztunnel on the others. Absent without --read-close-kinds, where ztunnel could
   * not see its sockets, or where its log line predates the figures.
   */
  closeKinds?: { resetShare: number; inFlightOnFin: number };
  /**
   * What the gateway received when the deadline closed its tunnels: the connections from a pod's
   * :15008 on the deadline's node whose first FIN or RST fell in [deadline - 100 ms, + 1 s)
   * (tcpdump on the network world's uplink: clusters/netns/wire-closes.ts). Absent without a capture.
   */
  wire?: { fin: number; rst: number };
  /**
   * Of the time the path's processes (gateway, ztunnel, httpbin) were runnable around the
   * deadline, the share spent waiting for a CPU (schedstat): roughly that share of T_past + L is
   * this machine's contention, not the mechanism. Undefined without CPU samples.
   */
  cpuWaitShare?: number;
  /**
   * From the old ztunnel's SIGTERM to this deadline, ms (its own two log lines on the run clock):
   * the drain period ztunnel computed. Undefined where the SIGTERM was not seen.
   */
  afterSigtermMs?: number;
  /** 100 ms buckets around the deadline on its node: requests started, failed, and their T_past. */
  trace: TraceBucket[];
}

export interface TraceBucket {
  /** Bucket start, ms from the deadline. */
  fromMs: number;
  requests: number;
  failed: number;
  /** Mean T_past of the bucket's answered requests, ms (undefined: none answered). */
  pastGatewayMs?: number;
}

const TRACE_BUCKET_MS = 100;
const TRACE_SPAN_MS = { before: 2000, after: 1000 };

/** The deadline's node, bucketed: how T_past and the failures move up to and past the drop. */
function traceOf(onNode: readonly TimedEntry[], d: number): TraceBucket[] {
  const buckets: TraceBucket[] = [];
  for (let from = -TRACE_SPAN_MS.before; from < TRACE_SPAN_MS.after; from += TRACE_BUCKET_MS) {
    const inBucket = onNode.filter((e) => e.startMs >= d + from && e.startMs < d + from + TRACE_BUCKET_MS);
    const past = inBucket.flatMap((e) =>
      e.entry.pastGatewayUs === undefined ? [] : [e.entry.pastGatewayUs / 1000],
    );
    buckets.push({
      fromMs: from,
      requests: inBucket.length,
      failed: inBucket.filter((e) => e.entry.flags.length > 0).length,
      ...(past.length ? { pastGatewayMs: past.reduce((a, b) => a + b, 0) / past.length } : {}),
    });
  }
  return buckets;
}

/** ASM's E1 rate (seed 001: 289,970 calls in 60 s at c=1000): the projection's default rate. */
export const ASM_E1_RATE_PER_S = 4_800;

/** How far back from the deadline the rate and T_past are taken. */
export const ACCOUNT_WINDOW_MS = 2000;
/**
 * A connection with a request starting this long after the deadline was not closed by it. A deadline
 * with less load than this after it cannot be accounted: every connection then looks closed, those
 * the new ztunnel serves too (explain-run.ts leaves it out, and says so).
 */
export const STILL_OPEN_AFTER_MS = 1000;
const PATH_GROUPS = new Set(['gateway', 'ztunnel', 'httpbin']);

const ipOf = (upstream: string): string => upstream.replace(/:\d+$/, '');

export function accountDeadline(options: {
  deadlineMs: number;
  /** The node whose old ztunnel reached its deadline. */
  node: string;
  /** Every access-log entry of the run. */
  entries: readonly TimedEntry[];
  /** Pod IP -> node. */
  nodeOfIp: ReadonlyMap<string, string>;
  /** The failures attributed to this deadline (its burst). */
  failures: readonly TimedEntry[];
  cpuSamples?: readonly CpuSample[];
  /** ztunnel's `in_flight=` at the deadline (parseDeadlineFigures). */
  inFlightInside?: number;
  /** ztunnel's split of its connections by how their close goes (parseDeadlineFigures). */
  closeKinds?: CloseKinds & { connections: number };
  /** The HBONE closes captured on the wire around this deadline, from its node's pods. */
  wire?: { fin: number; rst: number };
}): DeadlineAccount {
  const d = options.deadlineMs;
  const onNode = options.entries.filter(
    (e) =>
      e.entry.connectionId !== undefined && options.nodeOfIp.get(ipOf(e.entry.upstream)) === options.node,
  );
  const lastStart = new Map<number, number>();
  for (const e of onNode) {
    const id = e.entry.connectionId as number;
    lastStart.set(id, Math.max(lastStart.get(id) ?? -Infinity, e.startMs));
  }
  const before = onNode.filter((e) => e.startMs >= d - ACCOUNT_WINDOW_MS && e.startMs < d);
  const closed = new Set(
    before
      .map((e) => e.entry.connectionId as number)
      .filter((id) => (lastStart.get(id) ?? Infinity) < d + STILL_OPEN_AFTER_MS),
  );
  const onClosed = before.filter((e) => closed.has(e.entry.connectionId as number));
  const past = onClosed.flatMap((e) =>
    e.entry.pastGatewayUs === undefined ? [] : [e.entry.pastGatewayUs / 1000],
  );
  const pastGatewayMs = past.length ? past.reduce((a, b) => a + b, 0) / past.length : 0;
  const ratePerS = onClosed.length / (ACCOUNT_WINDOW_MS / 1000);
  const lastAfter = new Map<number, number>();
  for (const f of options.failures)
    if (f.startMs >= d && f.entry.connectionId !== undefined && closed.has(f.entry.connectionId))
      lastAfter.set(f.entry.connectionId, Math.max(lastAfter.get(f.entry.connectionId) ?? 0, f.startMs - d));
  const reactionMs = closed.size ? [...lastAfter.values()].reduce((a, b) => a + b, 0) / closed.size : 0;
  const predicted = (ratePerS * (pastGatewayMs + reactionMs)) / 1000;
  const afterDrop = (ratePerS * reactionMs) / 1000;
  const predictedFin =
    options.inFlightInside === undefined
      ? predicted
      : Math.min(predicted, options.inFlightInside + afterDrop);
  const interval: [number, number] = [poissonInterval(predictedFin)[0], poissonInterval(predicted)[1]];
  const count = options.failures.length;
  const share = cpuWaitShare(options.cpuSamples, d);
  const kinds = options.closeKinds;
  const closeKinds =
    kinds && kinds.unknown === 0 && kinds.connections > 0
      ? { resetShare: kinds.onUnread / kinds.connections, inFlightOnFin: kinds.inFlightElsewhere }
      : undefined;
  return {
    count,
    closedConnections: closed.size,
    ratePerS,
    pastGatewayMs,
    reactionMs,
    ...(options.inFlightInside === undefined ? {} : { inFlightInside: options.inFlightInside }),
    predicted,
    predictedFin,
    interval,
    inside: count >= interval[0] && count <= interval[1],
    ...(closeKinds ? { closeKinds } : {}),
    ...(options.wire ? { wire: options.wire } : {}),
    ...(share === undefined ? {} : { cpuWaitShare: share }),
    trace: traceOf(onNode, d),
  };
}

/** The path components' run-queue wait over their runnable time in the samples ending within 1 s after d. */
function cpuWaitShare(samples: readonly CpuSample[] | undefined, d: number): number | undefined {
  const around = (samples ?? []).filter(
    (s) => PATH_GROUPS.has(s.group) && s.atMs >= d && s.atMs < d + 1000 + 1,
  );
  const waited = around.reduce((a, s) => a + s.waitPct, 0);
  const ran = around.reduce((a, s) => a + s.pct, 0);
  return waited + ran > 0 ? waited / (waited + ran) : undefined;
}

/** One line per deadline for the run's output. */
export function formatDeadlineAccount(a: DeadlineAccount): string {
  const wait =
    a.cpuWaitShare === undefined
      ? ''
      : `; the path's processes waited for a CPU ${(a.cpuWaitShare * 100).toFixed(0)} % of their runnable time (about ${((a.pastGatewayMs + a.reactionMs) * a.cpuWaitShare).toFixed(1)} ms of T_past + L)`;
  const fin =
    a.inFlightInside === undefined
      ? ''
      : ` if a reset, ${a.predictedFin.toFixed(1)} if a FIN (${String(a.inFlightInside)} inside ztunnel + rate x L)`;
  const split = a.closeKinds
    ? `; ztunnel's close: ${(a.closeKinds.resetShare * 100).toFixed(0)} % of the connections on sockets with unread bytes (RST), the rest FIN`
    : '';
  const wire = a.wire
    ? `; on the wire from ztunnel's :15008: ${String(a.wire.fin)} FIN, ${String(a.wire.rst)} RST`
    : '';
  return (
    `accounted: ${String(a.count)} lost, ${a.inside ? 'inside' : 'OUTSIDE'} ${String(a.interval[0])}-${String(a.interval[1])} (95 %): predicted ${a.predicted.toFixed(1)}${fin}${split}${wire}; ` +
    `${a.ratePerS.toFixed(0)} req/s on the ${String(a.closedConnections)} connections it closed, ` +
    `T_past ${a.pastGatewayMs.toFixed(2)} ms, L ${a.reactionMs.toFixed(2)} ms${wait}`
  );
}

/**
 * The user's question "how many would I lose at R req/s?", answered from this run's mechanism:
 * every deadline's prediction scaled by R over the run's own rate (the share of the traffic each
 * old ztunnel carried and T_past + L held as measured here: a projection, not a measurement).
 */
export function projectCount(
  accounts: readonly DeadlineAccount[],
  runRatePerS: number,
  atRatePerS: number,
): number {
  if (runRatePerS <= 0) return 0;
  return accounts.reduce((n, a) => n + a.predicted, 0) * (atRatePerS / runRatePerS);
}
