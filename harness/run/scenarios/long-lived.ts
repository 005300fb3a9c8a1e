import type { ClusterAddresses, ClusterBackend } from '../../../clusters/backend.ts';
import type { LifecycleEvent } from '../../../clusters/events.ts';
import { HTTPBIN_PORT } from '../../../clusters/manifests/index.ts';
import { providerOf } from '../../../clusters/registry.ts';
import { ErrorCode, fromWallMs, HarnessError } from '../../../lib/index.ts';
import type { Clock } from '../../../lib/index.ts';
import { drainDeadlineForGraceMs } from '../../../ztunnel/config/drain-deadline.ts';
import type { ClusterScenario, CompanionResult } from '../cluster-scenario.ts';
import { ZTUNNEL_DAEMONSET, NEEDS_IN_POD_ZTUNNEL, scenarioManifests } from '../scenario-manifests.ts';
import { lifeLinesOf } from '../../../apps/long-lived-client/long-lived-config.ts';
import type { LongLivedConfig } from '../../../apps/long-lived-client/long-lived-config.ts';
import type { ConnectionLife } from '../../../apps/long-lived-client/long-lived-connections.ts';
import { startLongLivedConnections } from '../../../apps/long-lived-client/long-lived-connections.ts';
import { LONG_LIVED_COLUMNS } from '../../record/columns/companion-columns.ts';

/** Long-lived connections per run: two per httpbin pod with the default three replicas. */
const LONG_LIVED = 6;
/** One request a second on each, so a reset is seen whether the connection is busy or idle. */
const INTERVAL_MS = 1000;
/** An end counts as "at the deadline" within this window after SIGTERM + deadline. */
const AT_DEADLINE_MS = { before: 250, after: 1500 };

/** The Ready httpbin pods, whose addresses their node's ztunnel captures. */
function httpbinPods(addresses: ClusterAddresses) {
  return addresses.pods.filter((p) => p.owner === 'deployment/httpbin' && p.isReady && !p.isDeleting);
}

/**
 * When each node's old ztunnel was told to stop: its SIGTERM where the backend sees signals (local),
 * else the API server's deletion of its pod (kind: the kubelet sends SIGTERM as it sees the deletion;
 * the difference is the kubelet's reaction, milliseconds). The first per node: the old instance.
 */
export function ztunnelStopByNode(events: readonly LifecycleEvent[]): {
  byNode: Map<string, number>;
  from: string;
} {
  const ofZtunnel = (kind: LifecycleEvent['kind']) => {
    const byNode = new Map<string, number>();
    for (const e of events)
      if (e.kind === kind && e.object.startsWith('istio-system/ztunnel') && e.node && !byNode.has(e.node))
        byNode.set(e.node, e.atMs);
    return byNode;
  };
  const sigterms = ofZtunnel('sigterm');
  return sigterms.size > 0
    ? { byNode: sigterms, from: 'SIGTERM' }
    : { byNode: ofZtunnel('pod-deleting'), from: "the API server's deletion of the pod" };
}

/**
 * What happened to the long-lived connections: each first-generation connection should be ended by
 * its node's old ztunnel at SIGTERM + drain deadline, and every reconnect should work. Upstream drops
 * the connection (close(), no SO_LINGER): an idle one gets a FIN, one with unread bytes a RST; the
 * Istio blog's "RST" is the second case. Both count as ended at the deadline; the columns say which.
 */
export function judgeLongLived(
  lives: ConnectionLife[],
  ztunnelSigtermByNode: ReadonlyMap<string, number>,
  deadlineMs: number,
  loadStartMs: number,
): CompanionResult & { columns: Record<keyof typeof LONG_LIVED_COLUMNS, string | number> } {
  const first = lives.filter((l) => l.generation === 0);
  const later = lives.filter((l) => l.generation > 0);
  const offsets: number[] = [];
  let atDeadline = 0;
  const ended = (l: ConnectionLife): boolean => l.end === 'reset' || l.end === 'closed';
  for (const l of first) {
    const sigterm = ztunnelSigtermByNode.get(l.node);
    if (!ended(l) || l.endedAtMs === undefined || sigterm === undefined) continue;
    const offset = l.endedAtMs - sigterm;
    offsets.push(offset);
    if (offset >= deadlineMs - AT_DEADLINE_MS.before && offset <= deadlineMs + AT_DEADLINE_MS.after)
      atDeadline += 1;
  }
  const reconnectFailures = later.reduce((n, l) => n + l.requestsFailed, 0);
  const firstFailures = first.reduce((n, l) => n + l.requestsFailed, 0);
  const resets = first.filter((l) => l.end === 'reset').length;
  const fins = first.filter((l) => l.end === 'closed').length;
  const fmt = (ms: number): string => (ms / 1000).toFixed(3);
  const lines = [
    `long-lived connections: ${String(first.length)} opened at load start; ${String(fins + resets)} ended (${String(fins)} FIN, ${String(resets)} RST), ${String(atDeadline)} of them at their node's ztunnel SIGTERM + drain deadline (${fmt(deadlineMs)} s)` +
      (offsets.length ? `; ended at SIGTERM + ${offsets.map(fmt).join(', ')} s` : ''),
    `  reconnects: ${String(later.length)} new connections, ${String(reconnectFailures)} failed requests on them; ${String(firstFailures)} requests in flight on a long-lived connection when it ended`,
    ...first
      .filter((l) => !ended(l))
      .map((l) => {
        const stop = ztunnelSigtermByNode.get(l.node);
        const at = l.endedAtMs === undefined ? '' : ` at ${fmt(l.endedAtMs - loadStartMs)} s`;
        // Why a connection the upgrade should have ended was not: its node's deadline, if any, came later.
        const why =
          stop === undefined
            ? `: ${l.node}'s ztunnel was not stopped during the load`
            : stop + deadlineMs > (l.endedAtMs ?? stop)
              ? `: ${l.node}'s old ztunnel was stopped at ${fmt(stop - loadStartMs)} s, its deadline at ${fmt(stop + deadlineMs - loadStartMs)} s, after the load ended (a longer --duration sees it; on kind each node's surge takes the readiness probe's 10 s period)`
              : '';
        return `  connection ${String(l.slot)} to ${l.pod} on ${l.node}: ${l.end}${at}${why}`;
      }),
  ];
  return {
    columns: {
      long_lived_connections: first.length,
      long_lived_fin: fins,
      long_lived_reset: resets,
      long_lived_ended_at_deadline: atDeadline,
      long_lived_end_offset_s: offsets.map(fmt).join(' '),
      long_lived_reconnects: later.length,
      long_lived_reconnect_failures: reconnectFailures,
    },
    lines,
    // The long-lived connections ending is the expected, documented behaviour; a failed reconnect is not.
    failed: reconnectFailures,
  };
}

/**
 * E3 (seed 000, the ztunnel upgrade blog): during a ztunnel DaemonSet restart, connections older
 * than the drain deadline are ended at the deadline, while new connections never fail. Long-lived
 * keep-alive connections go straight to pod addresses (captured by the node's ztunnel); k6 opens a
 * new connection for every request to the same pods throughout.
 */
export const longLived: ClusterScenario = {
  name: 'long-lived',
  // The connections to pod IP:port reach the binary's :15006 through istio-cni's in-pod rules.
  ztunnelImpls: ['istio-shared'],
  summary:
    'long-lived connections and a stream of new ones during a ztunnel DaemonSet restart (ztunnel upgrade blog, seed 000)',
  source: 'E3, seed 000 (Istio blog: ztunnel upgrades)',
  // The gateway carries no load here (the connections go to the pods); plain keeps it off the HBONE path.
  manifests: (p) => scenarioManifests(p),
  requires: [{ capability: 'inPodZtunnel', why: NEEDS_IN_POD_ZTUNNEL }],
  fault: {
    kind: 'rollout-restart',
    target: ZTUNNEL_DAEMONSET,
  },
  defaultMaxFailed: 0,
  // grace 15 s -> drain deadline 10 s: the resets land inside a 25 s run.
  defaults: { qps: 50, connections: 10, durationS: 25, graceS: 15, restartAtS: 5, gatewayMode: 'plain' },
  loadTargets: (addresses, p) =>
    httpbinPods(addresses).map((pod) => `http://${pod.podIp}:${String(HTTPBIN_PORT)}${p.path}`),
  loadShape: { newConnectionPerRequest: true },
  companionColumns: LONG_LIVED_COLUMNS,
  companion(ctx) {
    const loadStartMs = ctx.clock.now();
    const podsFromHost = providerOf(ctx.params.backend).capabilities.has('podsFromHost');
    const client = startLongLivedClient(ctx.backend, podsFromHost, ctx.clock, {
      targets: httpbinPods(ctx.backend.addresses()).map((p) => ({
        host: p.podIp,
        port: HTTPBIN_PORT,
        pod: p.name,
        node: p.node,
      })),
      count: LONG_LIVED,
      intervalMs: INTERVAL_MS,
    });
    return {
      async stop() {
        const lives = await client.stop();
        const stops = ztunnelStopByNode(ctx.backend.events());
        // ztunnel's deadline as its chart sets it: from the grace period (--grace).
        const deadlineMs = drainDeadlineForGraceMs(ctx.params.graceS);
        const judged = judgeLongLived(lives, stops.byNode, deadlineMs, loadStartMs);
        return { ...judged, lines: [...judged.lines, `  (each old ztunnel's stop: ${stops.from})`] };
      },
    };
  },
};

/**
 * The long-lived connections, from where the pods' addresses are reachable: the harness's process,
 * or a pod outside the mesh where the backend's pod network is only inside the cluster (kind:
 * apps/long-lived-client/main.ts in the client image). The same connections either way
 * (apps/long-lived-client/long-lived-connections.ts); a pod's times come back as Unix ms.
 */
function startLongLivedClient(
  backend: ClusterBackend,
  podsFromHost: boolean,
  clock: Clock,
  config: LongLivedConfig,
): { stop(): Promise<ConnectionLife[]> } {
  if (podsFromHost) {
    const conns = startLongLivedConnections({ ...config, clock });
    return { stop: () => conns.stop() };
  }
  if (!backend.startClientPod)
    throw new HarnessError(
      ErrorCode.LoadFailed,
      `backend ${backend.kind}: its pods are not reachable from the harness and it runs no client pod`,
    );
  const pod = backend.startClientPod({
    name: `long-lived-${String(Math.round(clock.now()))}`,
    command: ['node', 'apps/long-lived-client/main.ts'],
    env: { LONG_LIVED: JSON.stringify(config) },
  });
  // A pod that failed to start is told at stop, with the load's end (the run's load failure).
  pod.catch(() => undefined);
  return {
    async stop() {
      const lines = await (await pod).stop();
      const lives = lifeLinesOf(lines);
      if (!lives)
        throw new HarnessError(
          ErrorCode.LoadFailed,
          `E3's long-lived client pod wrote no result; its output:\n${lines.join('\n')}`,
        );
      return lives.map((l) => ({
        ...l,
        openedAtMs: fromWallMs(clock, l.openedAtMs),
        ...(l.endedAtMs === undefined ? {} : { endedAtMs: fromWallMs(clock, l.endedAtMs) }),
      }));
    },
  };
}
