import type { LocalWorkload } from '../mesh/workload.ts';
import { UNKNOWN_WORKLOAD_WAIT_MS } from './inbound/hbone-inbound.ts';
import { startPodListeners } from './inbound/pod-listeners.ts';
import type { InboundListeners, PodListeners } from './inbound/pod-listeners.ts';
import type { DropCounts } from './proxy/connection-tracker.ts';
import type { ProxyDeps } from './proxy/proxy-deps.ts';
import { startNodeListener } from './inbound/node-listener.ts';
import type { DiscoveryChange, DiscoveryState } from '../mesh/discovery/index.ts';
import { applyDrainStrategy } from './drain-strategy.ts';
import { drainListeners } from './sigterm-drain.ts';
import type { ZtunnelOptions } from './ztunnel-options.ts';
export type { ZtunnelOptions } from './ztunnel-options.ts';

/** ztunnel's own identity (the chart's service account), served to clients that name none. */
export const ZTUNNEL_IDENTITY = { namespace: 'istio-system', serviceAccount: 'ztunnel' };

export { DRAIN_CLOSE_REASON } from './sigterm-drain.ts';
/** How long option 2's drain at CNI DEL waits for streams to end (the pod is gone: they should be). */
export const CNI_DEL_DRAIN_BOUND_MS = 1000;

/** One ztunnel instance's data plane: the node's pods, added and removed by the node agent. */
export interface Ztunnel {
  addWorkload(workload: LocalWorkload): Promise<void>;
  /**
   * The CNI's DelWorkload: that pod's listeners closed and its connections dropped at once (upstream's
   * DrainMode::Immediate: src/inpod/statemanager.rs `shutdown_workload`). With `networkGone` (the
   * sandbox went first, as upstream's DelWorkload comes today) nothing of that drop reaches a peer:
   * on the loopback model the connections go silent instead (pod-listeners.ts `freeze`); a pod in a
   * network namespace of its own needs no emulation (its veth is really gone).
   */
  delWorkload(uid: string, options?: { networkGone?: boolean }): DropCounts;
  /** istio/ztunnel#1191 option 1: a pod's termination started (GOAWAY with goaway-on-shutdown-start). */
  onShutdownStarting(uid: string): void;
  /** Option 2: the CNI DEL hook, before the network goes (a graceful drain with drain-on-cni-del). */
  onCniDel(uid: string): Promise<void>;
  markSnapshotSent(): void;
  /** The node agent went away: not ready until a new connection's snapshot is in. */
  markSnapshotPending(): void;
  /**
   * Node-address mode (kind): one HBONE listener on the node's address for all of this node's
   * ambient pods, known from discovery (see inbound/node-listener.ts). Ready once it is bound.
   */
  listenOnNode(node: { ip: string; name: string }): Promise<void>;
  /** A discovery delta was applied: the drain strategy may act on it. */
  onDiscoveryChange(change: DiscoveryChange): void;
  /** Snapshot received, every pod's listeners bound, not draining. */
  isReady(): boolean;
  /**
   * SIGTERM behaviour (istio/ztunnel src/drain.rs, src/proxy/inbound.rs): every listener closed at
   * once and GOAWAY on inbound HBONE connections, outbound flows unsignalled; wait for connections to
   * end until the drain deadline; then drop the rest (connection-tracker.ts: FIN, or RST where
   * unread data is left). Resolves with how many were dropped and how many had data in flight.
   */
  drain(): Promise<{ forced: number; inFlight: number; waitedMs: number }>;
}

function awaitWorkload(discovery: DiscoveryState): (ip: string) => Promise<boolean> {
  return (ip) => discovery.waitForWorkload(ip, UNKNOWN_WORKLOAD_WAIT_MS);
}

/** One ztunnel's listeners and lifecycle flags, shared by its methods. */
interface ZtunnelState {
  options: ZtunnelOptions;
  pods: Map<string, PodListeners>;
  /** The node-address listener, when in that mode. */
  shared: InboundListeners[];
  snapshotSent: boolean;
  draining: boolean;
}

export function createZtunnel(options: ZtunnelOptions): Ztunnel {
  const state: ZtunnelState = { options, pods: new Map(), shared: [], snapshotSent: false, draining: false };
  return {
    listenOnNode: (node) => listenOnNodeAddress(state, node),
    addWorkload: (workload) => addPod(state, workload),
    delWorkload: (uid, { networkGone = false } = {}) => removePod(state, { uid, networkGone }),
    onShutdownStarting: (uid) => {
      sendShutdownGoaway(state, uid);
    },
    onCniDel: (uid) => drainPodAtCniDel(state, uid),
    markSnapshotSent() {
      state.snapshotSent = true;
    },
    markSnapshotPending() {
      state.snapshotSent = false;
    },
    onDiscoveryChange: (change) => {
      applyDiscoveryChange(state, change);
    },
    isReady: () => state.snapshotSent && !state.draining,
    drain: () => {
      state.draining = true;
      return drainListeners(state);
    },
  };
}

function inboundDeps(options: ZtunnelOptions): Omit<ProxyDeps, 'tracker'> {
  const { log, clock } = options;
  return {
    log: log.child({ scope: 'access' }),
    metrics: options.metrics,
    now: () => clock.now(),
    ...(options.outbound ? { awaitWorkload: awaitWorkload(options.outbound.discovery) } : {}),
    ...(options.upstreamConnectTimeoutMs === undefined
      ? {}
      : { upstreamConnectTimeoutMs: options.upstreamConnectTimeoutMs }),
  };
}

async function listenOnNodeAddress(state: ZtunnelState, node: { ip: string; name: string }): Promise<void> {
  const { options } = state;
  if (!options.outbound) throw new Error('node-address mode needs discovery (XDS_ADDRESS)');
  if (state.draining) throw new Error('draining: not listening');
  const listener = await startNodeListener({
    nodeIp: node.ip,
    nodeName: node.name,
    discovery: options.outbound.discovery,
    issueCert: options.issueCert,
    ownCert: await options.issueCert(ZTUNNEL_IDENTITY),
    deps: inboundDeps(options),
  });
  state.shared.push(listener);
  state.snapshotSent = true;
  options.log.info('listening on the node address', { node: node.name, addr: node.ip });
}

async function addPod(state: ZtunnelState, workload: LocalWorkload): Promise<void> {
  const { options, pods } = state;
  if (state.draining) throw new Error('draining: not accepting new workloads');
  if (pods.has(workload.uid)) return;
  const cert = await options.issueCert(workload);
  const listeners = await startPodListeners(workload, cert, inboundDeps(options), options.outbound);
  pods.set(workload.uid, listeners);
  options.log.info('pod added', {
    uid: workload.uid,
    name: workload.name,
    addr: workload.podIp,
    ports: workload.ports.join(','),
    ...(workload.netns ? { netns: workload.netns } : {}),
  });
}

function removePod(
  state: ZtunnelState,
  { uid, networkGone }: { uid: string; networkGone: boolean },
): DropCounts {
  const pod = state.pods.get(uid);
  if (!pod) return { connections: 0, inFlight: 0 };
  state.pods.delete(uid);
  // A pod in a namespace of its own whose veth is gone needs no emulation: what ztunnel sends on
  // its sockets there has no route out, so the drop reaches nobody, as upstream's does.
  const emulateGone = networkGone && pod.workload.netns === undefined;
  const dropped = emulateGone ? pod.freeze('pod deleted') : pod.destroy('pod deleted');
  state.options.log.info('pod removed', {
    uid,
    name: pod.workload.name,
    forced: dropped.connections,
    in_flight: dropped.inFlight,
    network_gone: networkGone,
  });
  return dropped;
}

/** istio/ztunnel#1191 option 1 (goaway-on-shutdown-start). */
function sendShutdownGoaway(state: ZtunnelState, uid: string): void {
  const pod = state.pods.get(uid);
  if (!pod || state.options.drainStrategy !== 'goaway-on-shutdown-start') return;
  const goaways = pod.sendGoaway();
  pod.hbone.goawayAfterEveryStream();
  state.options.log.info('pod shutdown starting: GOAWAY sent', { uid, name: pod.workload.name, goaways });
}

/** Option 2 (drain-on-cni-del). */
async function drainPodAtCniDel(state: ZtunnelState, uid: string): Promise<void> {
  const pod = state.pods.get(uid);
  if (!pod || state.options.drainStrategy !== 'drain-on-cni-del') return;
  // The app has exited; the network is still there: tell the clients properly, then go.
  state.pods.delete(uid);
  const drained = await pod.drainGracefully(CNI_DEL_DRAIN_BOUND_MS);
  const dropped = pod.destroy('pod deleted');
  state.options.log.info('pod drained at CNI DEL', {
    uid,
    name: pod.workload.name,
    goaways: drained.goaways,
    close_notify: drained.closeNotify,
    forced: dropped.connections,
  });
}

function applyDiscoveryChange(state: ZtunnelState, change: DiscoveryChange): void {
  const { options } = state;
  const strategy = options.drainStrategy ?? 'none';
  const done = applyDrainStrategy(strategy, change, {
    podsByUid: state.pods,
    ...(options.outbound ? { pool: options.outbound.pool } : {}),
  });
  if (done.goaways + done.evicted > 0) options.log.info('drain strategy applied', { strategy, ...done });
}
