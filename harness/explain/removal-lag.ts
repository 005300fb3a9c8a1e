// The 1.28 report's lag (seed 002): from a terminating pod's app exit to ztunnel's removal of the
// pod from its workloads, per pod, from the run's events. Local: the control plane's push of the
// removal (workload-removed-pushed, named for the pod; the timing model's). kind: ztunnel's own log,
// istio/ztunnel's `received response type_url=".../istio.workload.Address" ... removes=N` line or
// ours written the same way (address-removal-received, on ztunnel's container: the line does not
// name the pod), the first one after the pod's exit.
import type { LifecycleEvent } from '../../clusters/events.ts';
import { median } from '../../lib/median.ts';

export interface RemovalLag {
  /** `namespace/pod` */
  pod: string;
  exitedAtMs: number;
  /** From the exit to the removal reaching ztunnel (kind) or being pushed (local), ms. */
  lagMs: number;
}

/** The components' own pods, whose exits (an upgrade's old ztunnel) are not the workload's. */
const MESH_NAMESPACE = 'istio-system/';

/** Each terminating workload pod's lag, in exit order; a pod whose removal was not seen has none. */
export function removalLags(events: readonly LifecycleEvent[]): RemovalLag[] {
  const sorted = [...events].sort((a, b) => a.atMs - b.atMs);
  const deleted = new Set(sorted.filter((e) => e.kind === 'pod-deleting').map((e) => e.object));
  const exits = new Map<string, number>();
  for (const e of sorted)
    if (
      e.kind === 'container-exited' &&
      deleted.has(e.object) &&
      !e.object.startsWith(MESH_NAMESPACE) &&
      !exits.has(e.object)
    )
      exits.set(e.object, e.atMs);
  const received = sorted.filter((e) => e.kind === 'address-removal-received').map((e) => e.atMs);
  const lags: RemovalLag[] = [];
  for (const [pod, exitedAtMs] of exits) {
    const pushed = sorted.find(
      (e) => e.kind === 'workload-removed-pushed' && e.object === pod && e.atMs >= exitedAtMs,
    )?.atMs;
    const removedAtMs = pushed ?? received.find((at) => at >= exitedAtMs);
    if (removedAtMs !== undefined) lags.push({ pod, exitedAtMs, lagMs: removedAtMs - exitedAtMs });
  }
  return lags;
}

/** The median of the lags, ms (one decimal), or undefined with none. */
export function medianLagMs(lags: readonly RemovalLag[]): number | undefined {
  if (lags.length === 0) return undefined;
  return Math.round(median(lags.map((l) => l.lagMs)) * 10) / 10;
}
