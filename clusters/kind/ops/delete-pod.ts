import type { KindRun } from '../kind-run.ts';
import type { WorkloadRef } from '../../backend.ts';
import { need, podsOf, waitForChange } from '../kind-workloads.ts';

/** Deletes a pod; resolved once the watch shows it deleting (or gone), so what is read next reflects it. */
export async function deletePod(run: KindRun, namespace: string, podName: string): Promise<void> {
  await need(run).api.deletePod(namespace, podName);
  const pod = () =>
    need(run)
      .watch.list('pods')
      .find((p) => p.metadata?.namespace === namespace && p.metadata.name === podName);
  await waitForChange(run, {
    timeoutMs: 10_000,
    what: `pod ${namespace}/${podName} in kind cluster ${run.settings.name} to be seen deleting`,
    check: () => (pod()?.metadata?.deletionTimestamp || !pod() ? true : undefined),
  });
}

/** Deletes every pod of the workload that is not deleting already, all at once. */
export async function deleteAllPods(run: KindRun, ref: WorkloadRef): Promise<number> {
  const pods = podsOf(run, ref).filter((p) => !p.metadata?.deletionTimestamp);
  await Promise.all(pods.map((p) => deletePod(run, ref.namespace, p.metadata?.name ?? '')));
  return pods.length;
}
