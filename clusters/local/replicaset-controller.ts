// kube-controller-manager's ReplicaSet controller (pkg/controller/replicaset) for a Deployment's
// ReplicaSets: each one's pods brought to the spec the Deployment controller set.
import type { DeploymentRecord, PodRecord } from './cluster-state.ts';
import { isActive } from './cluster-state.ts';
import { createPod, deletePod } from './pod-control.ts';
import type { ControllerContext } from './controller-context.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

export interface ReplicaSetsInput {
  deployment: DeploymentRecord;
  /** The Deployment's pods as read before this sync: pods it deletes stop being active, new ones are not in it. */
  pods: PodRecord[];
}

/** The active (not deleted, not terminal) pods of one ReplicaSet, by its template hash. */
export function activeOf(pods: PodRecord[], templateHash: string): PodRecord[] {
  return pods.filter((p) => p.owner.templateHash === templateHash && isActive(p));
}

/**
 * ReplicaSet controllers: create to spec; delete surplus, not-Ready first, then most recently Ready.
 * Says whether any ReplicaSet's active pods were off its spec.
 */
export function syncReplicaSets(ctx: ControllerContext, input: ReplicaSetsInput): boolean {
  const d = input.deployment;
  const owner = { kind: 'Deployment' as const, name: d.object.metadata?.name ?? '' };
  let changed = false;
  for (const rs of d.replicaSets) {
    const active = activeOf(input.pods, rs.templateHash);
    for (let n = active.length; n < rs.specReplicas; n++)
      createPod(ctx, { owner: { ...owner, templateHash: rs.templateHash }, object: d.object });
    const victims = active.sort(
      (a, b) => Number(a.isReady) - Number(b.isReady) || (b.readySinceMs ?? 0) - (a.readySinceMs ?? 0),
    );
    for (const victim of victims.slice(0, Math.max(0, active.length - rs.specReplicas)))
      deletePod(ctx, victim, 'scaled down by the ReplicaSet controller');
    changed ||= active.length !== rs.specReplicas;
  }
  return changed;
}
