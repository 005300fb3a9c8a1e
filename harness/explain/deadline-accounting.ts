import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import type { CpuSample } from '../observe/cpu-monitor.ts';
import { poissonInterval } from './poisson.ts';

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
 * Measured on the first runs with Envoy (2026-11-24), that holds where the old ztunnel's close is a
 * reset: a close() with unread bytes in the socket sends RST, and the gateway's kernel then drops
 * responses it had received but Envoy had not yet read. Where the close is a FIN, responses already
 * written reach Envoy and only the requests still inside ztunnel (its own in_flight count at the
 * deadline) are lost before the drop. The two bound the count:
 *   FIN: in_flight + rate_old x L      RST: rate_old x (T_past + L)
 * and a count is inside when it lies in [Poisson low of the first, Poisson high of the second].
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
   * Of the time the path's processes (gateway, ztunnel, httpbin) were runnable around the
   * deadline, the share spent waiting for a CPU (schedstat): roughly that share of T_past + L is
   * this machine's contention, not the mechanism. Undefined without CPU samples.
   */
  cpuWaitShare?: number;
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
/** A connection with a request starting this long after the deadline was not closed by it. */
const STILL_OPEN_AFTER_MS = 1000;
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
  return (
    `accounted: ${String(a.count)} lost, ${a.inside ? 'inside' : 'OUTSIDE'} ${String(a.interval[0])}-${String(a.interval[1])} (95 %): predicted ${a.predicted.toFixed(1)}${fin}; ` +
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
