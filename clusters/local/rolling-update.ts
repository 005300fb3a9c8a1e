/**
 * The Deployment controller's RollingUpdate arithmetic, after kubernetes
 * pkg/controller/deployment/rolling.go and util/deployment_util.go (ResolveFenceposts,
 * NewRSNewReplicas, reconcileOldReplicaSets). Pure: the controller feeds it ReplicaSet counts and
 * applies the answer. Terminating pods are not in any count (ReplicaSet status filters active pods).
 */
export interface ReplicaSetCounts {
  /** `spec.replicas`: what the ReplicaSet controller converges to. */
  specReplicas: number;
  /** Active (not terminating) pods that are Ready (minReadySeconds 0, so Available). */
  available: number;
}

export interface RollingUpdateInput {
  replicas: number;
  maxSurge: number | string;
  maxUnavailable: number | string;
  newRs: ReplicaSetCounts;
  /** Old ReplicaSets, oldest first. */
  oldRss: ReplicaSetCounts[];
}

export interface RollingUpdatePlan {
  newRsReplicas: number;
  /** New `spec.replicas` per old ReplicaSet, same order as the input. */
  oldRsReplicas: number[];
}

/** An int-or-percent value scaled against `total`, rounded as Kubernetes does for that field. */
export function scaleIntOrPercent(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) throw new Error(`invalid int-or-percent value ${JSON.stringify(value)}`);
  const exact = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** maxSurge rounds up, maxUnavailable down; both 0 would deadlock, so unavailable becomes 1. */
export function resolveFenceposts(
  input: Pick<RollingUpdateInput, 'replicas' | 'maxSurge' | 'maxUnavailable'>,
): {
  surge: number;
  unavailable: number;
} {
  const surge = scaleIntOrPercent(input.maxSurge, input.replicas, true);
  const unavailable = scaleIntOrPercent(input.maxUnavailable, input.replicas, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * One sync. As in rolloutRolling, a sync that scales the new ReplicaSet up stops there; otherwise it
 * scales old ones down (unavailable old pods first), only while availability stays above
 * replicas - maxUnavailable.
 */
export function planRollingUpdate(input: RollingUpdateInput): RollingUpdatePlan {
  const { surge, unavailable } = resolveFenceposts(input);
  const oldSpecs = input.oldRss.map((rs) => rs.specReplicas);
  const unchanged = { newRsReplicas: input.newRs.specReplicas, oldRsReplicas: [...oldSpecs] };
  // A scaling event outside a rollout (deployment sync.go `scale`): the only active ReplicaSet is
  // set to the new size. Proportional scaling in the middle of a rollout is not modelled.
  if (sum(oldSpecs) === 0) return { ...unchanged, newRsReplicas: input.replicas };
  // NewRSNewReplicas: grow the new ReplicaSet up to replicas + maxSurge in all.
  const total = input.newRs.specReplicas + sum(oldSpecs);
  const scaleUp = Math.min(input.replicas + surge - total, input.replicas - input.newRs.specReplicas);
  if (scaleUp > 0) return { ...unchanged, newRsReplicas: input.newRs.specReplicas + scaleUp };
  // reconcileOldReplicaSets.
  const minAvailable = input.replicas - unavailable;
  const newUnavailable = input.newRs.specReplicas - input.newRs.available;
  let maxScaledDown = total - minAvailable - newUnavailable;
  if (sum(oldSpecs) === 0 || maxScaledDown <= 0) return unchanged;
  const oldRsReplicas = [...oldSpecs];
  // cleanupUnhealthyReplicas: old pods that are not available go first (kubernetes#16737).
  input.oldRss.forEach((rs, i) => {
    const current = oldRsReplicas[i] ?? 0;
    const unhealthy = Math.min(maxScaledDown, Math.max(0, current - rs.available));
    oldRsReplicas[i] = current - unhealthy;
    maxScaledDown -= unhealthy;
  });
  // scaleDownOldReplicaSetsForRollingUpdate, oldest ReplicaSet first.
  let scaleDown = input.newRs.available + sum(input.oldRss.map((rs) => rs.available)) - minAvailable;
  input.oldRss.forEach((_, i) => {
    const current = oldRsReplicas[i] ?? 0;
    const step = Math.max(0, Math.min(current, scaleDown));
    oldRsReplicas[i] = current - step;
    scaleDown -= step;
  });
  return { newRsReplicas: input.newRs.specReplicas, oldRsReplicas };
}
