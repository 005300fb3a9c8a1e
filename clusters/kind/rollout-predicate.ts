import type { V1DaemonSet, V1Deployment } from '@kubernetes/client-node';
import type { WorkloadKind } from '../backend.ts';
import { isDaemonSetRolledOut, isDeploymentRolledOut } from '../rollout-status.ts';

/**
 * `kubectl rollout status` on a watched object (kubectl pkg/polymorphichelpers/rollout_status.go):
 * first the controller must have observed the current generation, then the same predicates the local
 * backend uses.
 */
export function isRolledOut(object: V1Deployment | V1DaemonSet, kind: WorkloadKind): boolean {
  const generation = object.metadata?.generation ?? 0;
  if ((object.status?.observedGeneration ?? 0) < generation) return false;
  // List and watch items carry no `kind`: the caller says which it is.
  if (kind === 'DaemonSet') {
    const s = (object as V1DaemonSet).status;
    return isDaemonSetRolledOut({
      desiredNumberScheduled: s?.desiredNumberScheduled ?? 0,
      updatedNumberScheduled: s?.updatedNumberScheduled ?? 0,
      numberAvailable: s?.numberAvailable ?? 0,
    });
  }
  const d: V1Deployment = object;
  return isDeploymentRolledOut({
    replicas: d.spec?.replicas ?? 1,
    statusReplicas: d.status?.replicas ?? 0,
    updatedReplicas: d.status?.updatedReplicas ?? 0,
    availableReplicas: d.status?.availableReplicas ?? 0,
  });
}
