import type { DiscoveryServer, DiscoverySnapshot } from '../discovery/index.ts';
import type { AdsServer, DeltaAdsServer, NetworkingSnapshot } from '../xds/index.ts';
import { buildDiscoverySnapshot } from './build-discovery.ts';
import type { ControlPlaneOptions, PushReport } from './control-plane-options.ts';
import { createDebouncer } from './debouncer.ts';
import type { Debouncer } from './debouncer.ts';

/** What the last push sent: the ADS servers serve it, the next push compares with it. */
export interface PushState {
  options: ControlPlaneOptions;
  /** Gateways and VirtualServices, pushed with the snapshot: only Envoy's routes read them. */
  networkingOf: () => NetworkingSnapshot;
  pushed: DiscoverySnapshot;
  pushedNetworking: NetworkingSnapshot;
  pushes: number;
}

/** The servers each push reaches. */
export interface PushTargets {
  discovery: DiscoveryServer;
  ads: AdsServer;
  deltaAds: DeltaAdsServer;
}

/** Which workloads a push turns UNHEALTHY and which it removes. */
function compare(
  before: DiscoverySnapshot,
  after: DiscoverySnapshot,
): Pick<PushReport, 'becameUnhealthy' | 'removed'> {
  const previous = new Map(before.workloads.map((w) => [w.uid, w]));
  const next = new Set(after.workloads.map((w) => w.uid));
  return {
    becameUnhealthy: after.workloads.filter(
      (w) => w.status === 'UNHEALTHY' && previous.get(w.uid)?.status === 'HEALTHY',
    ),
    removed: before.workloads.filter((w) => !next.has(w.uid)),
  };
}

/** What a push would send, as one comparable value. */
function derivedState(snapshot: DiscoverySnapshot, networking: unknown): string {
  return JSON.stringify([snapshot, networking]);
}

/** The debounce in front of the pushes: each change (re)starts it, a push goes out when it fires. */
export function createPushDebouncer(state: PushState, targets: PushTargets): Debouncer {
  const { clock, log } = state.options;
  return createDebouncer({
    clock,
    quietMs: state.options.debounceQuietMs,
    maxMs: state.options.debounceMaxMs,
    push: () => pushChanges(state, targets),
    onError: (err) => {
      log.error('push failed', { error: String(err) });
    },
  });
}

/** One push: the source's state when the debounce fired, sent to every subscriber. */
async function pushChanges(state: PushState, targets: PushTargets): Promise<void> {
  const { options } = state;
  const { clock, log } = options;
  // istiod builds the push from the state when the debounce fires; the latency is the time to
  // compute and deliver it. Changes arriving meanwhile wait for the next debounce window.
  const snapshot = buildDiscoverySnapshot(options.source);
  const networking = state.networkingOf();
  await clock.sleep(options.pushLatencyMs);
  const changes = compare(state.pushed, snapshot);
  if (options.holdRemovalsMs && changes.removed.length + changes.becameUnhealthy.length > 0)
    await clock.sleep(options.holdRemovalsMs);
  const result = await targets.discovery.push(snapshot);
  const report: PushReport = { atMs: clock.now(), ...result, ...changes };
  state.pushed = snapshot;
  state.pushedNetworking = networking;
  targets.ads.update();
  targets.deltaAds.update();
  state.pushes++;
  log.debug('pushed', { version: result.version, acked: result.acked, subscribers: result.subscribers });
  options.onPush?.(report);
}

/** Triggers the debounce on each source change that alters what a push would send; returns the unsubscribe. */
export function watchSource(state: PushState, debouncer: Debouncer): () => void {
  const { options } = state;
  // Only a change to what a push would send (re)starts the debounce: istiod's ambient index drops an
  // event whose derived object equals the one before (pkg/kube/krt/collection.go: "NOP change,
  // skip"), so a pod's status updates that change no workload (a new pod's conditions, a container's
  // restart count) never reach ConfigUpdate and its debouncer (pilot/pkg/xds/discovery.go).
  let derived = derivedState(state.pushed, state.pushedNetworking);
  return options.source.onChange(() => {
    const now = derivedState(buildDiscoverySnapshot(options.source), state.networkingOf());
    if (now === derived) return;
    derived = now;
    debouncer.trigger();
  });
}
