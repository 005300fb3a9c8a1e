import { GO_HTTPBIN_READ_TIMEOUT_MS } from '../../apps/go-httpbin.ts';
import type { LifecycleEvent } from '../../clusters/events.ts';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import type { Burst } from '../tally/index.ts';
import type { EnvoyFailure } from './gateway-access-log.ts';

/** A gateway failure on the run's clock. */
export interface GatewayFailure {
  startMs: number;
  entry: EnvoyFailure;
}

/**
 * Failures grouped by what caused them rather than by when they happened: every failure the
 * gateway logged goes to the cause its upstream points at, so one terminating pod is one burst even
 * when a quiet 100 ms lies between two of its failures (at 50 RPS a bucket holds ~5 requests).
 *
 * - pod-termination: the upstream pod was going away (its deletion or its app's SIGTERM, the earlier)
 *   before the request failed, that is before its end: a CONNECT refused is the app's closed
 *   listener met on the way, after the request started at the gateway (E2).
 * - drain-deadline: an old ztunnel on the upstream pod's node reached its drain deadline within
 *   DEADLINE_WINDOW_MS of the request's start (E1).
 * - listener-close: an old ztunnel on that node had just closed its listeners (SIGTERM).
 * - keep-alive race: none of these, and the request was a 503 UC on an upstream connection that had
 *   sat idle about as long as httpbin keeps one (isKeepAliveRace).
 * - unattributed: none of these (and failures with no upstream at all, e.g. no healthy upstream).
 */
export interface CauseBurst extends Burst {
  failuresList: GatewayFailure[];
  /** When the last failed request started (the burst's length is last - first). */
  lastStartMs: number;
}

/** A request cut at a deadline started up to its own duration before it; a reaction takes a while after. */
const DEADLINE_WINDOW_MS = 2000;
const LISTENER_WINDOW_MS = { before: 500, after: 2000 };

/**
 * go-httpbin closes a keep-alive connection idle for 5 s, counted from its own write of the last
 * response; the idle time derived from the gateway's log counts from the end of that request
 * downstream (its start + %DURATION%), later by the way back through ztunnel and Envoy (tens of ms,
 * a few hundred on saturated cores), so it is shorter. A second of margin covers that.
 */
export const KEEP_ALIVE_RACE_MIN_IDLE_MS = GO_HTTPBIN_READ_TIMEOUT_MS - 1000;

/**
 * A 503 UC on a connection put back to work after sitting idle until the server was closing it. The
 * idle time is derived from Envoy's access log (explain-bursts.ts IDLE_DERIVATION); where it is
 * unknown (the connection's first logged request) this is no race.
 */
export function isKeepAliveRace(entry: ParsedAccessLog): boolean {
  return (
    entry.status === 503 &&
    entry.flags.includes('UC') &&
    entry.connectionIdleMs !== undefined &&
    entry.connectionIdleMs >= KEEP_ALIVE_RACE_MIN_IDLE_MS
  );
}

interface PodFacts {
  key: string;
  node: string;
}

/** Pod address -> pod, from the local backend's pod-created events (`<podIp> (app <appIp>)`). */
export function podsByIp(events: readonly LifecycleEvent[]): Map<string, PodFacts> {
  const pods = new Map<string, PodFacts>();
  for (const e of events) {
    // The local backend's pod-created, kind's node agent enrolling the pod, or a real cluster's pod
    // turning Ready (the API's pod IP): "<ip> ...", on its node.
    if ((e.kind !== 'pod-created' && e.kind !== 'add-workload' && e.kind !== 'pod-ready') || !e.node)
      continue;
    const ip = /^(\d+\.\d+\.\d+\.\d+)\b/.exec(e.detail ?? '')?.[1];
    if (ip) pods.set(ip, { key: e.object, node: e.node });
  }
  return pods;
}

const isZtunnel = (object: string): boolean => object.startsWith('istio-system/ztunnel');

/**
 * The first sign of a pod going away, whoever gave it: its deletion as the harness's watch saw it,
 * or the app's own SIGTERM line (kind: go-httpbin's, log-events.ts). The watch can see the deletion
 * after the kubelet has already signalled the app (-29 to +130 ms measured, issue 58), so the earlier
 * of the two is the termination's start.
 */
function goingAwayOf(pod: string, events: readonly LifecycleEvent[]): LifecycleEvent | undefined {
  return events
    .filter((e) => e.object === pod && (e.kind === 'pod-deleting' || e.kind === 'sigterm'))
    .reduce<LifecycleEvent | undefined>((first, e) => (first && first.atMs <= e.atMs ? first : e), undefined);
}

function causeOf(
  failure: GatewayFailure,
  pods: ReadonlyMap<string, PodFacts>,
  events: readonly LifecycleEvent[],
): LifecycleEvent | undefined {
  const ip = failure.entry.upstream.replace(/:\d+$/, '');
  const pod = pods.get(ip);
  if (!pod) return undefined;
  const t = failure.startMs;
  const goingAway = goingAwayOf(pod.key, events);
  if (goingAway && goingAway.atMs <= t + failure.entry.durationMs) return goingAway;
  const onNode = events.filter((e) => e.node === pod.node && isZtunnel(e.object));
  const deadline = onNode
    .filter((e) => e.kind === 'drain-deadline' && Math.abs(t - e.atMs) <= DEADLINE_WINDOW_MS)
    .sort((a, b) => Math.abs(t - a.atMs) - Math.abs(t - b.atMs))[0];
  if (deadline) return deadline;
  return onNode.find(
    (e) =>
      e.kind === 'sigterm' &&
      t >= e.atMs - LISTENER_WINDOW_MS.before &&
      t <= e.atMs + LISTENER_WINDOW_MS.after,
  );
}

/** One burst per cause, in order of their first failure. */
export function groupFailuresByCause(
  failures: readonly GatewayFailure[],
  events: readonly LifecycleEvent[],
): CauseBurst[] {
  const pods = podsByIp(events);
  const groups = new Map<string, CauseBurst>();
  for (const f of [...failures].sort((a, b) => a.startMs - b.startMs)) {
    const cause = causeOf(f, pods, events);
    const key = cause
      ? `${cause.kind}|${cause.object}|${String(cause.atMs)}`
      : isKeepAliveRace(f.entry)
        ? 'keep-alive-race'
        : 'unattributed';
    let group = groups.get(key);
    if (!group) {
      group = {
        startMs: f.startMs,
        durationMs: 0,
        failures: 0,
        failuresList: [],
        lastStartMs: f.startMs,
        ...(cause ? { cause: { atMs: cause.atMs, kind: cause.kind, object: cause.object } } : {}),
      };
      groups.set(key, group);
    }
    group.failures++;
    group.failuresList.push(f);
    group.lastStartMs = f.startMs;
    group.durationMs = f.startMs - group.startMs;
  }
  return [...groups.values()].sort((a, b) => a.startMs - b.startMs);
}
