import type { WatchUpdate } from './cluster-watch.ts';
import { emitEvent } from './kind-run.ts';
import type { KindRun } from './kind-run.ts';
import { isLoadPod } from './kind-workloads.ts';
import { endpointChanges, podChanges } from './pod-events.ts';

/**
 * A watch update: our namespaces' pod and EndpointSlice changes become lifecycle events (a pod's
 * container restarts go to the restart policy), and every wait re-checks its condition.
 */
export function handleWatchUpdate(run: KindRun, update: WatchUpdate): void {
  const object = update.after ?? update.before;
  const namespace = object?.metadata?.namespace ?? '';
  // A load pod of ours is no part of the workload under test (an existing cluster's are in its namespace).
  if (run.scope.watched.has(namespace) && !isLoadPod(object)) {
    const key = `${namespace}/${object?.metadata?.name ?? ''}`;
    if (update.kind === 'pods') {
      for (const c of podChanges(update.before, update.after))
        emitEvent(run, c.kind, key, c.detail, update.after?.spec?.nodeName);
      run.restarts.onPodUpdate(key, update.before, update.after);
      if (update.after) run.logFollowers?.onPod(update.after);
    }
    if (update.kind === 'endpointSlices')
      for (const { pod, change } of endpointChanges(update.before, update.after))
        // The endpoint controller wrote the slice the watch saw.
        emitEvent(run, change.kind, pod, change.detail, undefined, 'controller');
  }
  for (const listener of run.changeListeners) listener();
}
