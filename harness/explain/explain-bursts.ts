import { POD_GONE_KINDS } from '../../clusters/events.ts';
import type { LifecycleEvent, LifecycleEventKind } from '../../clusters/events.ts';
import type { Burst } from '../tally/index.ts';
import type { CloseKinds, DeadlineAccount } from './deadline-accounting.ts';
import type { EnvoyFailure } from './gateway-access-log.ts';
import { isKeepAliveRace } from './group-by-cause.ts';
import type { GatewayFailure } from './group-by-cause.ts';

/**
 * Why a burst of failures happened, from what the components themselves logged:
 * - drain-deadline: an old ztunnel dropped its remaining connections at its drain deadline
 *   (connection-tracker.ts). Its log line says how many and how many had a request in flight
 *   inside it; the gateway's access log says which failed requests started before the drop (in
 *   flight toward or inside the old ztunnel) and which after it (sent on a connection the gateway
 *   had not yet seen close; the last one's delay is the gateway's reaction time).
 * - listener-close: an old ztunnel closed its listeners at SIGTERM; connections still in their
 *   accept queue are reset (net.ipv4.tcp_migrate_req=0).
 * - pod-termination: a workload pod was going away (E2: ztunnel kept routing to it).
 * - keep-alive-race: no lifecycle event, and every failure a 503 UC on an upstream connection idle
 *   about as long as httpbin keeps one: put to work as httpbin closed it (Envoy, and so the gateway,
 *   keeps idle connections for 1 h; go-httpbin for 5 s).
 * - unattributed: nothing in the events explains it.
 */
export type BurstMechanism =
  'drain-deadline' | 'listener-close' | 'pod-termination' | 'keep-alive-race' | 'unattributed';

export interface BurstExplanation {
  mechanism: BurstMechanism;
  /** One line for the run's output. */
  text: string;
  /** The gateway's local replies inside the burst (from its access log). */
  gatewayFailures: number;
  droppedConnections?: number;
  droppedInFlight?: number;
  failedBeforeDrop?: number;
  failedAfterDrop?: number;
  /** From the drop to the start of the last request that still went onto a dropped connection. */
  gatewayReactionMs?: number;
  /**
   * What happened to the cause's object, relative to the cause (`sigterm +0.000 s, container-exited
   * +0.511 s, del-workload +0.513 s, workload-unhealthy-pushed +0.746 s`).
   */
  causeTimeline: string;
  /** pod-termination: whether its first failure came after the pod's SIGTERM (as in E2 it should). */
  startsAfterSigterm?: boolean;
  /** drain-deadline: the count accounted for by rate x (T_past + L) (deadline-accounting.ts). */
  account?: DeadlineAccount;
}

/** The events that tell a termination's story: the pod going away, then what the mesh made of it. */
const STORY: ReadonlySet<string> = new Set<string>([
  ...POD_GONE_KINDS,
  ...([
    'sandbox-removed',
    'workload-unhealthy-pushed',
    'workload-removed-pushed',
    'drain-deadline',
  ] as const satisfies readonly LifecycleEventKind[]),
]);

function causeTimeline(cause: Burst['cause'], events: readonly LifecycleEvent[]): string {
  if (!cause) return '';
  return events
    .filter((e) => e.object === cause.object && STORY.has(e.kind))
    .sort((a, b) => a.atMs - b.atMs)
    .map((e) => {
      return `${e.kind} ${signed((e.atMs - cause.atMs) / 1000)} s`;
    })
    .join(', ');
}

/**
 * Envoy logs no connection's idle time: it is derived from its access log (mesh/xds/access-log.ts
 * createConnectionTimes), the request's start minus the end of the previous request logged on the
 * same upstream connection. A lower bound: that end (start + %DURATION%) comes after the connection
 * was free again. Unknown where no earlier request on the connection was logged.
 */
export const IDLE_DERIVATION =
  "derived from Envoy's access log: since the previous request on the connection ended, a lower bound";

/** `4.990 s`, or `unknown` where the log does not say (never 0). */
export const formatIdle = (entry: EnvoyFailure): string =>
  entry.connectionIdleMs === undefined ? 'unknown' : `${(entry.connectionIdleMs / 1000).toFixed(3)} s`;

/**
 * How long the upstream connection of each 503 UC had sat idle, the first few in order (`0.120 s,
 * unknown (+2 more)`); not those whose CONNECT was refused (their connection was a new tunnel).
 */
function idleOfClosed(inBurst: readonly GatewayFailure[]): string {
  const shown = 4;
  const closed = inBurst.filter((f) => f.entry.flags.includes('UC') && !f.entry.tunnel);
  if (closed.length === 0) return '';
  const more = closed.length > shown ? ` (+${String(closed.length - shown)} more)` : '';
  const idle = closed.slice(0, shown).map((f) => formatIdle(f.entry));
  return `; the upstream connections of its 503 UC had sat idle ${idle.join(', ')}${more} (${IDLE_DERIVATION}; unknown where no earlier request on it was logged)`;
}

/** What closes an old ztunnel's listeners: its SIGTERM (after the pod's deletion and any preStop). */
const LISTENER_CLOSE = new Set(['pod-deleting', 'prestop-started', 'sigterm']);

/**
 * `connections=72 in_flight=3` from a drain-deadline event's log line, and where the line has them
 * (our ztunnel since 2026-11-24) `on_unread=40 in_flight_elsewhere=1 transport_unknown=0`.
 */
export function parseDeadlineFigures(
  detail: string | undefined,
): { connections: number; inFlight: number; closeKinds?: CloseKinds } | undefined {
  const m = /\bconnections=(\d+)\b.*\bin_flight=(\d+)\b/.exec(detail ?? '');
  if (!m) return undefined;
  const k = /\bon_unread=(\d+)\b.*\bin_flight_elsewhere=(\d+)\b.*\btransport_unknown=(\d+)\b/.exec(
    detail ?? '',
  );
  return {
    connections: Number(m[1]),
    inFlight: Number(m[2]),
    ...(k
      ? { closeKinds: { onUnread: Number(k[1]), inFlightElsewhere: Number(k[2]), unknown: Number(k[3]) } }
      : {}),
  };
}

const signed = (s: number): string => `${s < 0 ? '-' : '+'}${Math.abs(s).toFixed(3)}`;

/**
 * `+0.310 and +0.695 s`: when the first and last of `failures` started, from `originMs` (a request
 * can start before its cause and fail after it: `-0.006`).
 */
function span(failures: readonly GatewayFailure[], originMs: number): string {
  const starts = failures.map((f) => (f.startMs - originMs) / 1000);
  return `${signed(Math.min(...starts))} and ${signed(Math.max(...starts))} s`;
}

/**
 * A drain deadline's burst: what the old ztunnel dropped, and which of the gateway's failures were
 * sent before the drop (in flight) or after it (onto a connection it had not yet seen close).
 */
function explainDeadline(
  cause: NonNullable<Burst['cause']>,
  causeEvent: LifecycleEvent | undefined,
  inBurst: readonly GatewayFailure[],
  story: string,
): BurstExplanation {
  const figures = parseDeadlineFigures(causeEvent?.detail);
  const before = inBurst.filter((f) => f.startMs < cause.atMs);
  const after = inBurst.filter((f) => f.startMs >= cause.atMs);
  const reaction = after.length ? Math.max(...after.map((f) => f.startMs)) - cause.atMs : undefined;
  const dropped = figures
    ? `${cause.object} dropped ${String(figures.connections)} connections at its drain deadline (${String(figures.inFlight)} with a request in flight inside it)`
    : `${cause.object} dropped its connections at its drain deadline`;
  return {
    mechanism: 'drain-deadline',
    text:
      `${dropped}; the gateway failed ${String(inBurst.length)}: ${String(before.length)} sent before the drop, ` +
      `${String(after.length)} sent after it onto a connection it had not yet seen close` +
      (reaction === undefined ? '' : ` (the last ${String(Math.round(reaction))} ms after the drop)`),
    gatewayFailures: inBurst.length,
    causeTimeline: story,
    ...(figures ? { droppedConnections: figures.connections, droppedInFlight: figures.inFlight } : {}),
    failedBeforeDrop: before.length,
    failedAfterDrop: after.length,
    ...(reaction === undefined ? {} : { gatewayReactionMs: Math.round(reaction) }),
  };
}

/** `inBurst`: the gateway's failures that make up the burst (group-by-cause.ts). */
export function explainBurst(
  burst: Burst,
  events: readonly LifecycleEvent[],
  inBurst: readonly GatewayFailure[],
): BurstExplanation {
  const cause = burst.cause;
  const story = causeTimeline(cause, events);
  const causeEvent = cause
    ? events.find((e) => e.atMs === cause.atMs && e.kind === cause.kind && e.object === cause.object)
    : undefined;
  const isZtunnel = cause?.object.startsWith('istio-system/ztunnel') ?? false;
  if (cause?.kind === 'drain-deadline') return explainDeadline(cause, causeEvent, inBurst, story);
  if (cause && isZtunnel && LISTENER_CLOSE.has(cause.kind))
    return {
      mechanism: 'listener-close',
      text: `${cause.object} closed its listeners (${cause.kind}); the gateway failed ${String(inBurst.length)}: connections in the closing listener's accept queue are reset (tcp_migrate_req=0)`,
      gatewayFailures: inBurst.length,
      causeTimeline: story,
    };
  if (cause && !isZtunnel && POD_GONE_KINDS.has(cause.kind)) {
    const sigterm = events.find((e) => e.kind === 'sigterm' && e.object === cause.object);
    const first = Math.min(...inBurst.map((f) => f.startMs));
    return {
      startsAfterSigterm: sigterm !== undefined && first >= sigterm.atMs,
      mechanism: 'pod-termination',
      text: `${cause.object} was terminating (${cause.kind}); the gateway failed ${String(inBurst.length)} sent to it between ${span(inBurst, cause.atMs)} from its ${cause.kind}; ${story}`,
      gatewayFailures: inBurst.length,
      causeTimeline: story,
    };
  }
  if (!cause && inBurst.length > 0 && inBurst.every((f) => isKeepAliveRace(f.entry))) {
    // isKeepAliveRace holds for each, so each has an idle time.
    const idle = inBurst.map((f) => (f.entry.connectionIdleMs ?? Number.NaN) / 1000);
    return {
      mechanism: 'keep-alive-race',
      text: `the keep-alive race: the gateway failed ${String(inBurst.length)} 503 UC put on upstream connections idle ${Math.min(...idle).toFixed(3)}-${Math.max(...idle).toFixed(3)} s (${IDLE_DERIVATION}), as httpbin closed them (go-httpbin closes a connection idle 5 s; Envoy keeps one 1 h)`,
      gatewayFailures: inBurst.length,
      causeTimeline: story,
    };
  }
  return {
    mechanism: 'unattributed',
    text: `no lifecycle event explains it${cause ? ` (the latest before it: ${cause.kind} ${cause.object})` : ''}; the gateway failed ${String(inBurst.length)}${idleOfClosed(inBurst)}`,
    gatewayFailures: inBurst.length,
    causeTimeline: story,
  };
}
