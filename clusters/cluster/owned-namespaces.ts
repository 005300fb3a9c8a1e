// The namespaces the harness made on an existing cluster, found by its owner labels and deleted
// (everything a run creates is inside its namespace, so deleting it removes all: Kubernetes' namespace
// controller deletes every object in it, its pods with their grace periods).
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig, V1Namespace } from '@kubernetes/client-node';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { isNotFound } from './cluster-flags.ts';
import { EXPIRES_ANNOTATION, OWNED_SELECTOR, RUN_LABEL } from './run-ownership.ts';
import type { NamespaceFacts } from './run-ownership.ts';

export interface OwnedNamespace extends NamespaceFacts {
  createdAt: string;
}

/** Every namespace with the harness's owner label (one run: only its own); ownershipOf judges each. */
export async function listOwnedNamespaces(kc: KubeConfig, run?: string): Promise<OwnedNamespace[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const selector = run === undefined ? OWNED_SELECTOR : `${OWNED_SELECTOR},${RUN_LABEL}=${run}`;
  const list = await core.listNamespace({ labelSelector: selector });
  return list.items.map((n) => ({
    name: n.metadata?.name ?? '',
    labels: n.metadata?.labels ?? {},
    annotations: n.metadata?.annotations ?? {},
    isTerminating: n.status?.phase === 'Terminating' || n.metadata?.deletionTimestamp !== undefined,
    createdAt: n.metadata?.creationTimestamp?.toISOString() ?? '',
  }));
}

/**
 * Creates the run's namespace (a POST, never an apply: a namespace of that name that exists already,
 * whoever made it, is a 409 and stops the run before anything is created in it).
 */
export async function createRunNamespaceObject(kc: KubeConfig, namespace: V1Namespace): Promise<void> {
  const name = namespace.metadata?.name ?? '';
  try {
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: namespace });
  } catch (err) {
    if ((err as { code?: number } | null)?.code === 409)
      throw new HarnessError(
        ErrorCode.BadInput,
        `namespace ${name} exists already and was not made by this run: nothing was created in it or changed; run again (each run's namespace name is new)`,
      );
    throw err;
  }
}

/** The run's lease renewed: its namespace's expiry moved to `expiresAt` (a merge patch of one annotation). */
export async function renewLease(kc: KubeConfig, name: string, expiresAt: string): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .patchNamespace(
      { name, body: { metadata: { annotations: { [EXPIRES_ANNOTATION]: expiresAt } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
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
