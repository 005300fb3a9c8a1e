import { waitAtMost } from '../lib/index.ts';
import type { Clock, Logger } from '../lib/index.ts';
import type { WorkloadCertificate } from '../mesh/pki/index.ts';
import type { LocalWorkload } from '../mesh/workload.ts';
import { UNKNOWN_WORKLOAD_WAIT_MS } from './inbound/hbone-inbound.ts';
import { startPodListeners } from './inbound/pod-listeners.ts';
import type { InboundListeners, PodListeners } from './inbound/pod-listeners.ts';
import type { InboundDeps } from './inbound/hbone-inbound.ts';
import { startNodeListener } from './inbound/node-listener.ts';
import type { ZtunnelMetrics } from './telemetry/metrics.ts';
import type { DiscoveryChange, DiscoveryState } from '../mesh/discovery/index.ts';
import type { HbonePool } from '../mesh/hbone/index.ts';
import { applyDrainStrategy } from './drain-strategy.ts';
import type { DrainStrategy } from './drain-strategy.ts';

/** ztunnel's own identity (the chart's service account), served to clients that name none. */
export const ZTUNNEL_IDENTITY = { namespace: 'istio-system', serviceAccount: 'ztunnel' };

export const DRAIN_CLOSE_REASON = 'connection closed due to connection drain';

export interface ZtunnelOptions {
  issueCert: (identity: { namespace: string; serviceAccount: string }) => Promise<WorkloadCertificate>;
  log: Logger;
  metrics: ZtunnelMetrics;
  clock: Clock;
  drainDeadlineMs: number;
  upstreamConnectTimeoutMs?: number;
  /** Discovery and a client pool: pods get their outbound capture (:15001). */
  outbound?: { discovery: DiscoveryState; pool: HbonePool };
  drainStrategy?: DrainStrategy;
}

/** One ztunnel instance's data plane: the node's pods, added and removed by the node agent. */
export interface Ztunnel {
  addWorkload(workload: LocalWorkload): Promise<void>;
  /** The CNI's DelWorkload: that pod's listeners closed and its connections force-closed at once. */
  delWorkload(uid: string): number;
  markSnapshotSent(): void;
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
   * end until the drain deadline; then force-close the rest. Resolves with how many were forced.
   */
  drain(): Promise<{ forced: number; waitedMs: number }>;
}

function awaitWorkload(discovery: DiscoveryState): (ip: string) => Promise<boolean> {
  return (ip) => discovery.waitForWorkload(ip, UNKNOWN_WORKLOAD_WAIT_MS);
}

export function createZtunnel(options: ZtunnelOptions): Ztunnel {
  const pods = new Map<string, PodListeners>();
  /** The node-address listener, when in that mode. */
  const shared: InboundListeners[] = [];
  let snapshotSent = false;
  let draining = false;
  const { log, clock } = options;

  const inboundDeps = (): Omit<InboundDeps, 'tracker'> => ({
    log: log.child({ scope: 'access' }),
    metrics: options.metrics,
    now: () => clock.now(),
    ...(options.outbound ? { awaitWorkload: awaitWorkload(options.outbound.discovery) } : {}),
    ...(options.upstreamConnectTimeoutMs === undefined
      ? {}
      : { upstreamConnectTimeoutMs: options.upstreamConnectTimeoutMs }),
  });
  /** Every inbound listener set: the pods' and the node's. */
  const allListeners = (): InboundListeners[] => [...pods.values(), ...shared];

  return {
    async listenOnNode(node) {
      if (!options.outbound) throw new Error('node-address mode needs discovery (XDS_ADDRESS)');
      if (draining) throw new Error('draining: not listening');
      const listener = await startNodeListener({
        nodeIp: node.ip,
        nodeName: node.name,
        discovery: options.outbound.discovery,
        issueCert: options.issueCert,
        ownCert: await options.issueCert(ZTUNNEL_IDENTITY),
        deps: inboundDeps(),
      });
      shared.push(listener);
      snapshotSent = true;
      log.info('listening on the node address', { node: node.name, addr: node.ip });
    },
    async addWorkload(workload) {
      if (draining) throw new Error('draining: not accepting new workloads');
      if (pods.has(workload.uid)) return;
      const cert = await options.issueCert(workload);
      const listeners = await startPodListeners(workload, cert, inboundDeps(), options.outbound);
      pods.set(workload.uid, listeners);
      log.info('pod added', {
        uid: workload.uid,
        name: workload.name,
        addr: workload.podIp,
        ports: workload.ports.join(','),
      });
    },
    delWorkload(uid) {
      const pod = pods.get(uid);
      if (!pod) return 0;
      pods.delete(uid);
      const forced = pod.destroy('pod deleted');
      log.info('pod removed', { uid, name: pod.workload.name, forced });
      return forced;
    },
    markSnapshotSent() {
      snapshotSent = true;
    },
    onDiscoveryChange(change) {
      const strategy = options.drainStrategy ?? 'none';
      const done = applyDrainStrategy(strategy, change, {
        podsByUid: pods,
        ...(options.outbound ? { pool: options.outbound.pool } : {}),
      });
      if (done.goaways + done.evicted > 0) log.info('drain strategy applied', { strategy, ...done });
    },
    isReady: () => snapshotSent && !draining,
    async drain() {
      draining = true;
      const startMs = clock.now();
      for (const listeners of allListeners()) listeners.stopAccepting();
      const live = (): number => allListeners().reduce((n, p) => n + p.tracker.size, 0);
      const allClosed = (): Promise<unknown> => Promise.all(allListeners().map((p) => p.tracker.whenEmpty()));
      log.info('drain started', { deadline_ms: options.drainDeadlineMs, connections: live() });
      await waitAtMost(clock, allClosed(), options.drainDeadlineMs);
      // The harness turns this line into a drain-deadline lifecycle event (failure attribution).
      if (live() > 0) log.info('drain deadline reached', { connections: live() });
      let forced = 0;
      for (const listeners of allListeners()) forced += listeners.destroy(DRAIN_CLOSE_REASON);
      // The resets are sent as the sockets close (libuv closes with SO_LINGER 0); a process that exits
      // first would let the kernel close them with a FIN instead. Wait for them, briefly.
      await waitAtMost(clock, allClosed(), 1000);
      const waitedMs = clock.now() - startMs;
      log.info('drain complete', { forced, waited_ms: Math.round(waitedMs) });
      return { forced, waitedMs };
    },
  };
}
