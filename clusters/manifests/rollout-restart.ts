import { RESTARTED_AT_ANNOTATION } from './images.ts';

/** kubectl's field manager for `rollout restart`. */
export const ROLLOUT_RESTART_FIELD_MANAGER = 'kubectl-rollout';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/**
 * The strategic-merge patch `kubectl rollout restart` sends (objectrestarter.go): the pod template's
 * restartedAt annotation set to now, RFC 3339 in seconds.
 */
export function buildRolloutRestartPatch(now: Date): {
  spec: { template: { metadata: { annotations: Record<string, string> } } };
} {
  const restartedAt = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: restartedAt } } } } };
}
