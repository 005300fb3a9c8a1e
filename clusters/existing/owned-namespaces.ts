// The namespaces the harness made on an existing cluster, found by its owner labels and deleted
// (everything a run creates is inside its namespace, so deleting it removes all: Kubernetes' namespace
// controller deletes every object in it, its pods with their grace periods).
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../lib/index.ts';
import { isNotFound } from './cluster-flags.ts';
import { OWNED_SELECTOR, RUN_LABEL } from './run-objects.ts';

export interface OwnedNamespace {
  name: string;
  /** Terminating already (deleted, objects still going). */
  isTerminating: boolean;
  createdAt: string;
}

/** Every namespace with the harness's owner labels (one run: only its own). */
export async function listOwnedNamespaces(kc: KubeConfig, run?: string): Promise<OwnedNamespace[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const selector = run === undefined ? OWNED_SELECTOR : `${OWNED_SELECTOR},${RUN_LABEL}=${run}`;
  const list = await core.listNamespace({ labelSelector: selector });
  return list.items.map((n) => ({
    name: n.metadata?.name ?? '',
    isTerminating: n.status?.phase === 'Terminating',
    createdAt: n.metadata?.creationTimestamp?.toISOString() ?? '',
  }));
}

/**
 * Deletes a namespace of ours (already gone: nothing to do) and, with `waitMs`, waits until the API
 * no longer has it (polled each second; its pods get their grace periods first). Resolves whether it
 * is gone.
 */
export async function deleteOwnedNamespace(
  kc: KubeConfig,
  options: { name: string; clock: Clock; waitMs: number },
): Promise<boolean> {
  const core = kc.makeApiClient(CoreV1Api);
  const { name, clock } = options;
  try {
    await core.deleteNamespace({ name, propagationPolicy: 'Foreground' });
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
  const deadlineMs = clock.now() + options.waitMs;
  for (;;) {
    const exists = await core.readNamespace({ name }).then(
      () => true,
      (err: unknown) => (isNotFound(err) ? false : Promise.reject(err as Error)),
    );
    if (!exists) return true;
    if (clock.now() >= deadlineMs) return false;
    await clock.sleep(1000);
  }
}
