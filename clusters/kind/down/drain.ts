import { CLOSE_GRACE_S } from '../kind-options.ts';
import type { KindRun } from '../kind-run.ts';
import { owned, waitForChange } from '../kind-workloads.ts';
import { savePodLogs } from './save-pod-logs.ts';

/**
 * close()'s first half: every container's log of ours saved into logDir (logs() returns them; those
 * followed since the container started are kept as followed); then
 * as `kubectl delete` would, before the cluster goes: every workload we applied deleted (its pods by
 * garbage collection), every pod of ours deleted with a grace period of CLOSE_GRACE_S (SIGTERM, then
 * SIGKILL from the kubelet), and up to closeWaitMs for them to be gone. A kept cluster
 * (--keep-cluster) is left as it is, its logs saved all the same.
 */
export async function drain(run: KindRun): Promise<void> {
  const kube = run.api;
  const w = run.watch;
  if (!run.created || !kube || !w) return;
  const pods = () => owned(run, w.list('pods'));
  // The followed logs end here; what was not followed (a container that never ran) is read once.
  await run.logFollowers?.close();
  await savePodLogs(run, pods(), (log) => kube.podLog(log));
  if (run.settings.keepCluster) return;
  await Promise.allSettled([...run.applied].reverse().map((ref) => kube.deleteWorkload(ref)));
  await Promise.allSettled(
    pods().map((p) => kube.deletePod(p.metadata?.namespace ?? '', p.metadata?.name ?? '', CLOSE_GRACE_S)),
  );
  await waitForChange(run, {
    timeoutMs: run.settings.closeWaitMs,
    what: `the pods of kind cluster ${run.settings.name} to be gone`,
    signal: run.draining.signal,
    check: () => (pods().length === 0 ? true : undefined),
  }).catch(() => undefined); // bounded: the cluster is deleted either way
}
