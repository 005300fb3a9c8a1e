import type { RolloutResult, WorkloadRef } from '../../backend.ts';
import { workloadKey } from '../../events.ts';
import { emitEvent } from '../kind-run.ts';
import type { KindRun } from '../kind-run.ts';
import { need, podsOf, requireWorkload, waitForChange } from '../kind-workloads.ts';

/**
 * `kubectl delete <kind> <name>`: the workload deleted, its pods by garbage collection (background
 * propagation); resolved once the watch shows none of its pods left, the deletion's start and end
 * as a rollout's (its events: rollout-started, then rollout-old-pods-gone).
 */
export async function deleteWorkload(
  run: KindRun,
  ref: WorkloadRef,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<RolloutResult> {
  requireWorkload(run, ref);
  const { clock } = run.settings;
  const key = workloadKey(ref);
  const startedAtMs = clock.now();
  emitEvent(run, 'rollout-started', key, 'kubectl delete');
  await need(run).api.deleteWorkload(ref);
  const goneAtMs = await waitForChange(run, {
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    what: `the pods of deleted ${ref.kind} ${key} to be gone`,
    check: () => (podsOf(run, ref).length === 0 ? clock.now() : undefined),
  });
  emitEvent(run, 'rollout-old-pods-gone', key);
  return { startedAtMs, statusCompleteAtMs: goneAtMs, oldPodsGoneAtMs: goneAtMs };
}
