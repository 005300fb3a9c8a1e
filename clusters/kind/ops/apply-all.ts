import type { KubernetesObject } from '@kubernetes/client-node';
import type { KindRun } from '../kind-run.ts';
import { need } from '../kind-workloads.ts';
import { validateAgainstModels } from '../model-check.ts';

/**
 * Server-side apply of each object, in order, after checking them against the API's models; every
 * Deployment and DaemonSet is remembered (waitForReady waits until the watch has seen each, close()
 * deletes them).
 */
export async function applyAll(run: KindRun, objects: readonly KubernetesObject[]): Promise<void> {
  validateAgainstModels(objects);
  const { api } = need(run);
  for (const object of objects) {
    await api.apply(object);
    if (object.kind === 'Deployment' || object.kind === 'DaemonSet')
      run.applied.push({
        kind: object.kind,
        namespace: object.metadata?.namespace ?? 'default',
        name: object.metadata?.name ?? '',
      });
  }
}
