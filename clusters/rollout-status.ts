/**
 * `kubectl rollout status` completion predicates (kubectl pkg/polymorphichelpers/rollout_status.go).
 * Both can pass while old pods are still terminating: terminating pods are not in `replicas`.
 */
export interface DeploymentStatus {
  replicas: number;
  /** status.replicas: active pods of every ReplicaSet. */
  statusReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
}

export function isDeploymentRolledOut(s: DeploymentStatus): boolean {
  if (s.updatedReplicas < s.replicas) return false; // "n out of m new replicas have been updated"
  if (s.statusReplicas > s.updatedReplicas) return false; // "old replicas are pending termination"
  return s.availableReplicas >= s.updatedReplicas; // "n of m updated replicas are available"
}

export interface DaemonSetStatus {
  desiredNumberScheduled: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
}

export function isDaemonSetRolledOut(s: DaemonSetStatus): boolean {
  if (s.updatedNumberScheduled < s.desiredNumberScheduled) return false;
  return s.numberAvailable >= s.desiredNumberScheduled;
}
