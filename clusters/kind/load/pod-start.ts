// Why a pod of ours in the load namespace (fortio's, a client pod) is not starting: the waiting
// reasons the kubelet does not get past by itself (our images are never pulled).
import type { V1Pod } from '@kubernetes/client-node';

/** Waiting reasons the kubelet does not get past by itself (the image is never pulled here). */
export const STUCK_REASONS = new Set(['ErrImageNeverPull', 'InvalidImageName', 'CreateContainerConfigError']);

export function isStuck(pod: V1Pod): boolean {
  return STUCK_REASONS.has(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? '');
}

/** Why a pod that never ran did not: the container's waiting reason or the pod's conditions. */
export function whyNotStarted(pod: V1Pod): string {
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting;
  if (waiting) return `${waiting.reason ?? ''} ${waiting.message ?? ''}`.trim();
  return JSON.stringify(pod.status?.conditions ?? pod.status ?? {});
}
