import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LifecycleEvent } from '../../clusters/events.ts';
import { firstCloses, parseWireCloses, WIRE_CLOSES_LOG } from '../../clusters/netns/wire-closes.ts';
import type { WireClose } from '../../clusters/netns/wire-closes.ts';
import type { CpuSample } from '../observe/cpu-monitor.ts';
import { ACCOUNT_WINDOW_MS, accountDeadline, STILL_OPEN_AFTER_MS } from './deadline-accounting.ts';
import type { DeadlineAccount } from './deadline-accounting.ts';
import { explainBurst, parseDeadlineFigures } from './explain-bursts.ts';
import type { BurstExplanation } from './explain-bursts.ts';
import { formatFailureKinds, groupFailureKinds } from './failure-details.ts';
import type { FailureKind } from './failure-details.ts';
import { readGatewayAccessLog } from './gateway-access-log.ts';
import { groupFailuresByCause, podsByIp } from './group-by-cause.ts';
import type { CauseBurst } from './group-by-cause.ts';

/** A deadline's closes on the wire: from just before it (clock skew) to a second after. */
const WIRE_WINDOW_MS = { from: -100, to: 1000 };

/** What Envoy logged about the gateway's failures, over the whole run. */
export interface GatewayEvidence {
  /** The failures by status, flags, %RESPONSE_CODE_DETAILS% and failed tunnel, most first. */
  failureKinds: FailureKind[];
  /** `[connect_originate]` lines: HBONE tunnels Envoy could not open. */
  tunnelFailures: number;
  /** Those behind a failed request (the rest: attempts retried on another endpoint). */
  tunnelFailuresJoined: number;
}

export interface RunExplanation {
  /** The gateway's failures grouped by cause: one burst per cause. */
  bursts: CauseBurst[];
  /** One per burst, in the bursts' order. */
  explanations: BurstExplanation[];
  /**
   * The gateway's access log over the whole run: requests it finished, its own failures among the
   * counted requests, and those during the generator's warmup (not counted by fortio).
   */
  gateway: { requests: number; failures: number; warmupFailures: number };
  evidence: GatewayEvidence;
  /** Every old ztunnel's drain deadline inside the load, accounted for (E1; empty elsewhere). */
  accounts: { deadline: LifecycleEvent; account: DeadlineAccount }[];
  /**
   * Deadlines inside the load but too close to its end to account (less than STILL_OPEN_AFTER_MS
   * of load after them), with how much load followed each: their failures are still grouped and
   * explained, but not counted against the mechanism.
   */
  unaccounted: { deadline: LifecycleEvent; loadAfterMs: number }[];
}

/**
 * Every failure the gateway logged, grouped by its cause and explained from the components' own
 * logs in the run's container-log folder (local backend): the ztunnels' drain-deadline lines
 * (already lifecycle events) and the gateway's access log (read here, after the run). Each burst's
 * explanation ends with what Envoy said about its failures.
 */
export async function explainRun(options: {
  logDir: string;
  events: readonly LifecycleEvent[];
  /** The run clock's wall-clock offset: access-log times are wall clock. */
  wallOffsetMs: number;
  /** The load's span on the run clock: deadlines outside it cost nothing and are not accounted. */
  load?: { startMs: number; endMs: number };
  /** Per-component CPU and run-queue wait (cpu-monitor), for the deadlines' CPU-wait share. */
  cpuSamples?: readonly CpuSample[];
  /**
   * The first counted request's start, wall clock: the gateway's failures before it were fortio's
   * warmup calls, which fortio does not count; they are reported apart, not grouped.
   */
  countedFromWallMs?: number;
}): Promise<RunExplanation> {
  const { load } = options;
  const deadlines = options.events.filter(
    (e) =>
      e.kind === 'drain-deadline' && e.node && (!load || (e.atMs >= load.startMs && e.atMs < load.endMs)),
  );
  const margin = ACCOUNT_WINDOW_MS + 2000;
  const log = await readGatewayAccessLog(options.logDir, {
    keep: (wallMs) => deadlines.some((d) => Math.abs(wallMs - options.wallOffsetMs - d.atMs) <= margin),
  });
  const from = options.countedFromWallMs ?? -Infinity;
  // fortio's warmup calls start a few ms before the first counted one; 5 ms of slack as flag-join's.
  const counted = log.failures.filter((e) => e.startWallMs >= from - 5);
  const failures = counted.map((entry) => ({
    startMs: entry.startWallMs - options.wallOffsetMs,
    entry,
  }));
  const bursts = groupFailuresByCause(failures, options.events);
  const nodeOfIp = new Map([...podsByIp(options.events)].map(([ip, pod]) => [ip, pod.node]));
  const entries = log.kept.map((entry) => ({ startMs: entry.startWallMs - options.wallOffsetMs, entry }));
  // The HBONE closes on the wire (local backend with pod namespaces and tcpdump), when captured.
  const wireText = await readFile(join(options.logDir, WIRE_CLOSES_LOG), 'utf8').catch(() => undefined);
  const wireCloses = wireText === undefined ? undefined : parseWireCloses(wireText);
  const wireAt = (d: LifecycleEvent, all: readonly WireClose[]): { fin: number; rst: number } => {
    const wallMs = d.atMs + options.wallOffsetMs;
    const closes = firstCloses(all, wallMs + WIRE_WINDOW_MS.from, wallMs + WIRE_WINDOW_MS.to).filter(
      (c) => nodeOfIp.get(c.from.replace(/:\d+$/, '')) === d.node,
    );
    return {
      fin: closes.filter((c) => c.kind === 'FIN').length,
      rst: closes.filter((c) => c.kind === 'RST').length,
    };
  };
  const accountable = (d: LifecycleEvent): boolean => !load || d.atMs + STILL_OPEN_AFTER_MS <= load.endMs;
  const accounts = deadlines.filter(accountable).map((deadline) => {
    const figures = parseDeadlineFigures(deadline.detail);
    const burst = bursts.find(
      (b) =>
        b.cause?.kind === 'drain-deadline' &&
        b.cause.atMs === deadline.atMs &&
        b.cause.object === deadline.object,
    );
    const account = accountDeadline({
      deadlineMs: deadline.atMs,
      node: deadline.node ?? '',
      entries,
      nodeOfIp,
      failures: burst?.failuresList ?? [],
      ...(figures ? { inFlightInside: figures.inFlight } : {}),
      ...(figures?.closeKinds
        ? { closeKinds: { ...figures.closeKinds, connections: figures.connections } }
        : {}),
      ...(options.cpuSamples ? { cpuSamples: options.cpuSamples } : {}),
      ...(wireCloses ? { wire: wireAt(deadline, wireCloses) } : {}),
    });
    const sigterm = options.events
      .filter((e) => e.kind === 'sigterm' && e.object === deadline.object && e.atMs <= deadline.atMs)
      .at(-1);
    return {
      deadline,
      account: sigterm ? { ...account, afterSigtermMs: deadline.atMs - sigterm.atMs } : account,
    };
  });
  const explanations = bursts.map((b) => {
    const explained = explainBurst(b, options.events, b.failuresList);
    const kinds = groupFailureKinds(b.failuresList.map((f) => f.entry));
    const account = accounts.find(
      (a) => a.deadline.atMs === b.cause?.atMs && a.deadline.object === b.cause.object,
    )?.account;
    return {
      ...explained,
      text: `${explained.text}; Envoy: ${formatFailureKinds(kinds)}`,
      ...(account ? { account } : {}),
    };
  });
  return {
    bursts,
    explanations,
    gateway: {
      requests: log.requests,
      failures: counted.length,
      warmupFailures: log.failures.length - counted.length,
    },
    accounts,
    unaccounted: deadlines
      .filter((d) => !accountable(d))
      .map((deadline) => ({ deadline, loadAfterMs: (load?.endMs ?? deadline.atMs) - deadline.atMs })),
    evidence: {
      failureKinds: groupFailureKinds(log.failures),
      tunnelFailures: log.tunnelFailures.length,
      tunnelFailuresJoined: log.failures.filter((f) => f.tunnel).length,
    },
  };
}

/** The run's failures by Envoy's details, and the tunnel failures, in one line. */
export function formatGatewayEvidence(evidence: GatewayEvidence): string {
  const kinds = evidence.failureKinds.length ? formatFailureKinds(evidence.failureKinds) : 'none';
  const tunnels = evidence.tunnelFailures
    ? `; HBONE tunnels not opened: ${String(evidence.tunnelFailures)}, ${String(evidence.tunnelFailuresJoined)} behind a failed request`
    : '';
  return `gateway failures by Envoy's response details: ${kinds}${tunnels}`;
}
