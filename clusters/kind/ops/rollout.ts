import type { V1Deployment } from '@kubernetes/client-node';
import type { RolloutResult, WorkloadRef } from '../../backend.ts';
import { workloadKey } from '../../events.ts';
import { emitEvent } from '../kind-run.ts';
import type { KindRun } from '../kind-run.ts';
import { need, podsOf, refKey, requireWorkload, waitForChange, workloadOf } from '../kind-workloads.ts';
import { isRolledOut } from '../rollout-predicate.ts';

/** `kubectl rollout restart`: the template's restartedAt annotation patched; its generation awaited. */
export async function rolloutRestart(run: KindRun, ref: WorkloadRef): Promise<void> {
  requireWorkload(run, ref);
  emitEvent(run, 'rollout-started', workloadKey(ref), 'rollout restart');
  const { generation } = await need(run).api.rolloutRestart(ref, new Date());
  run.awaitedGeneration.set(refKey(ref), generation);
}

/** `kubectl scale`: the replicas patched; the generation the change makes awaited. */
export async function scale(run: KindRun, ref: WorkloadRef, replicas: number): Promise<void> {
  requireWorkload(run, ref);
  emitEvent(run, 'rollout-started', workloadKey(ref), `scale to ${String(replicas)}`);
  const current = workloadOf(run, ref) as V1Deployment;
  const generation = current.metadata?.generation ?? 0;
  await need(run).api.scale(ref, replicas);
  // The API server bumps the generation only when the spec changes.
  run.awaitedGeneration.set(refKey(ref), current.spec?.replicas === replicas ? generation : generation + 1);
}

/**
 * `kubectl rollout status`, then (untilOldPodsGone) until none of the workload's pods is terminating;
 * each moment an event and in the result.
 */
export async function waitForRollout(
  run: KindRun,
  ref: WorkloadRef,
  options: { timeoutMs: number; untilOldPodsGone?: boolean; signal?: AbortSignal },
): Promise<RolloutResult> {
  requireWorkload(run, ref);
  const { clock } = run.settings;
  const key = workloadKey(ref);
  const startedAtMs =
    run.events.all().findLast((e) => e.kind === 'rollout-started' && e.object === key)?.atMs ?? clock.now();
  const wait = (what: string, check: () => boolean) =>
    waitForChange(run, {
      timeoutMs: options.timeoutMs,
      what: `${ref.kind} ${key} ${what}`,
      signal: options.signal,
      check: () => (check() ? clock.now() : undefined),
    });
  // The patch's generation bump reaches the watch after the patch returns: wait for a status that
  // has seen it (observedGeneration) before trusting the predicate, as kubectl does.
  const statusCompleteAtMs = await wait('to roll out (kubectl rollout status)', () => {
    const w = workloadOf(run, ref);
    // The watch may still hold the version from before our patch: wait for the one after it.
    const seen = (w?.metadata?.generation ?? 0) >= (run.awaitedGeneration.get(refKey(ref)) ?? 0);
    return w !== undefined && seen && isRolledOut(w, ref.kind);
  });
  emitEvent(run, 'rollout-status-complete', key);
  const result: RolloutResult = { startedAtMs, statusCompleteAtMs };
  if (!options.untilOldPodsGone) return result;
  const oldPodsGoneAtMs = await wait('old pods to be gone', () =>
    podsOf(run, ref).every((p) => !p.metadata?.deletionTimestamp),
  );
  emitEvent(run, 'rollout-old-pods-gone', key);
  return { ...result, oldPodsGoneAtMs };
}
