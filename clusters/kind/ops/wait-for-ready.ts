import { awaitServing } from '../await-serving.ts';
import type { KindRun } from '../kind-run.ts';
import { isCaughtUp, need, owned, waitForChange, workloadOf } from '../kind-workloads.ts';
import { toPodInfo } from '../pod-info.ts';
import type { StepRunner } from '../../steps/step-runner.ts';
import { isRolledOut } from '../rollout-predicate.ts';

export interface ReadyWait {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Every Deployment and DaemonSet of ours rolled out, seen by the watches, and its pods Ready. */
export function isEverythingReady(run: KindRun): boolean {
  const w = need(run).watch;
  const pods = owned(run, w.list('pods')).map(toPodInfo);
  return (
    run.applied.every((ref) => isCaughtUp(run, ref)) &&
    owned(run, w.list('deployments')).every((d) => isRolledOut(d, 'Deployment')) &&
    owned(run, w.list('daemonSets')).every((d) => isRolledOut(d, 'DaemonSet')) &&
    pods.every((p) => p.isReady && !p.isDeleting)
  );
}

/** Until everything of ours is Ready; a timeout says which containers restarted before. */
export function waitWorkloadReady(run: KindRun, wait: ReadyWait): Promise<unknown> {
  return waitForChange(run, {
    timeoutMs: wait.timeoutMs,
    what: `every Deployment and DaemonSet in kind cluster ${run.settings.name} to be rolled out and Ready`,
    signal: wait.signal,
    check: () => (isEverythingReady(run) ? true : undefined),
  }).catch((err: unknown) => {
    throw run.restarts.explain(err);
  });
}

/** Ready pods are not yet pushed HEALTHY to the gateway: with one, until requests get through it. */
async function waitServing(run: KindRun, wait: ReadyWait & { deadlineMs: number }): Promise<void> {
  if (!workloadOf(run, run.scope.gateway)) return;
  const url = `http://127.0.0.1:${String(run.settings.ingressHostPort)}/get`;
  const { clock } = run.settings;
  await awaitServing({
    url,
    clock,
    deadlineMs: wait.deadlineMs,
    ...(wait.signal ? { signal: wait.signal } : {}),
  });
}

/**
 * waitForReady: the workload Ready, then serving through the gateway; from then on a container
 * restart fails the run. The first time (the bring-up's end) each half is a timed step, `workload`
 * and `serving`, as up()'s steps are.
 */
export async function waitForBringUpReady(
  run: KindRun,
  wait: ReadyWait & { runner: StepRunner },
): Promise<void> {
  const deadlineMs = run.settings.clock.now() + wait.timeoutMs;
  const isBringUp = !run.isReadyOnce;
  const timed = <T>(name: string, body: () => Promise<T>): Promise<T> =>
    isBringUp ? wait.runner.step(name, body, { keepError: true }) : body();
  await timed('workload', () => waitWorkloadReady(run, wait));
  await timed('serving', () => waitServing(run, { ...wait, deadlineMs }));
  run.isReadyOnce = true;
  run.restarts.markReady();
}
