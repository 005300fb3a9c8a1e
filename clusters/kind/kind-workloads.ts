import type { V1DaemonSet, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { WorkloadRef } from '../backend.ts';
import { LOAD_POD_LABEL } from '../manifests/index.ts';
import { waitForEvent } from '../wait-for-event.ts';
import type { ClusterWatch } from './cluster-watch.ts';
import type { KindRun } from './kind-run.ts';
import type { KubeApi } from './kube-api.ts';
import { ownerOf, toPodInfo } from './pod-info.ts';
import { isRolledOut } from './rollout-predicate.ts';

type Labelled = { metadata?: { namespace?: string; labels?: Record<string, string> } };

/** A load, client or probe pod of ours (an existing cluster has them in the run's namespace). */
export const isLoadPod = (o: Labelled | undefined): boolean =>
  o?.metadata?.labels?.[LOAD_POD_LABEL] === 'true';

/** The objects in these namespaces, our load pods left out. */
const within = <T extends Labelled>(namespaces: ReadonlySet<string>, list: T[]): T[] =>
  list.filter((o) => namespaces.has(o.metadata?.namespace ?? '') && !isLoadPod(o));

/** The run's namespaces' objects (kind: default, istio-system; run-scope.ts). */
export const ours = <T extends Labelled>(run: KindRun, list: T[]): T[] => within(run.scope.watched, list);

/** The objects in the namespaces the run owns (kind: all of its namespaces; an existing cluster: its own). */
export const owned = <T extends Labelled>(run: KindRun, list: T[]): T[] => within(run.scope.owned, list);

export const refKey = (ref: WorkloadRef): string => `${ref.kind}/${ref.namespace}/${ref.name}`;

/** The API and the watches, or BadInput when up() has not connected them. */
export function need(run: KindRun): { api: KubeApi; watch: ClusterWatch } {
  if (!run.api || !run.watch)
    throw new HarnessError(ErrorCode.BadInput, 'the kind cluster is not up; call up() first');
  return { api: run.api, watch: run.watch };
}

/** The workload as the watch last saw it. */
export function workloadOf(run: KindRun, ref: WorkloadRef): V1Deployment | V1DaemonSet | undefined {
  return need(run)
    .watch.list(ref.kind === 'Deployment' ? 'deployments' : 'daemonSets')
    .find((o) => o.metadata?.namespace === ref.namespace && o.metadata.name === ref.name);
}

export function requireWorkload(run: KindRun, ref: WorkloadRef): void {
  if (!workloadOf(run, ref))
    throw new HarnessError(
      ErrorCode.BadInput,
      `${ref.kind} ${ref.namespace}/${ref.name} does not exist in kind cluster ${run.settings.name}; apply it first`,
    );
}

/** The workload's pods (their controller's owner), as the watch last saw them. */
export function podsOf(run: KindRun, ref: WorkloadRef): V1Pod[] {
  return need(run)
    .watch.list('pods')
    .filter(
      (p) =>
        p.metadata?.namespace === ref.namespace && ownerOf(p) === `${ref.kind.toLowerCase()}/${ref.name}`,
    );
}

/** Resolves with `check()`'s value once defined, re-checked on every watch update. */
export function waitForChange<T>(
  run: KindRun,
  options: { what: string; timeoutMs: number; signal?: AbortSignal | undefined; check: () => T | undefined },
): Promise<T> {
  return waitForEvent({
    events: {
      on: (listener) => {
        run.changeListeners.add(listener);
        return () => run.changeListeners.delete(listener);
      },
    },
    clock: run.settings.clock,
    timeoutMs: options.timeoutMs,
    what: options.what,
    ...(options.signal ? { signal: options.signal } : {}),
    check: options.check,
  });
}

export function waitRolledOut(
  run: KindRun,
  ref: WorkloadRef,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<unknown> {
  return waitForChange(run, {
    ...options,
    what: `${ref.kind} ${ref.namespace}/${ref.name} in kind cluster ${run.settings.name} to be rolled out`,
    check: () => {
      const w = workloadOf(run, ref);
      return w && isRolledOut(w, ref.kind) ? true : undefined;
    },
  });
}

/**
 * Whether the watches have caught up with a workload: its object is there (an applied one the watch
 * has not delivered would pass the list without it, and the gateway would have no address), at
 * the generation our last change made (a scale), and its pods' informer has as many Ready pods as
 * its status says (the pods and the workload come on separate watches, in either order).
 */
export function isCaughtUp(run: KindRun, ref: WorkloadRef): boolean {
  const w = workloadOf(run, ref);
  if (!w || (w.metadata?.generation ?? 0) < (run.awaitedGeneration.get(refKey(ref)) ?? 0)) return false;
  const ready = podsOf(run, ref).filter((p) => toPodInfo(p).isReady && !p.metadata?.deletionTimestamp).length;
  const status: { readyReplicas?: number; numberReady?: number } = w.status ?? {};
  const claimed = ref.kind === 'Deployment' ? status.readyReplicas : status.numberReady;
  return ready >= (claimed ?? 0);
}
