// The existing-cluster backend on the API server double's user cluster, in a temp run folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createExistingBackend } from '../existing-backend.ts';
import type { ExistingBackendOptions } from '../existing-options.ts';
import { instantClock, removeDeletedNamespaces, startUserCluster } from './user-cluster.ts';

/** The run namespace the tests' runs take. */
export const NS = 'ztunnel-harness-20261127-103000-beef';

export async function backendOn(
  t: { after(fn: () => unknown): void },
  cluster: Parameters<typeof startUserCluster>[1] = {},
  options: Partial<ExistingBackendOptions> = {},
) {
  const { api, kubeconfig } = await startUserCluster(t, {
    extraApiGroups: ['networking.istio.io'],
    ...cluster,
  });
  removeDeletedNamespaces(api);
  const dir = mkdtempSync(join(tmpdir(), 'existing-backend-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const backend = createExistingBackend({
    clock: instantClock(),
    kubeconfig,
    context: 'kind-theirs',
    runNamespace: NS,
    logDir: join(dir, 'pods'),
    stepLogDir: join(dir, 'steps'),
    ...options,
  });
  t.after(() => backend.destroy());
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { api, backend, kc, kubeconfig, dir };
}
