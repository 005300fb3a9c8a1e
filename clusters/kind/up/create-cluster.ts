import { chmod, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { buildKindConfig } from '../kind-config.ts';
import { explainCreateFailure } from '../kind-preflight.ts';
import { KIND_NETWORK } from '../provision/kind-provisioner.ts';
import type { KindUp } from './kind-up.ts';

/**
 * The cluster step: `kind create cluster` with our config (one control plane, the workers, the
 * gateway's nodePort on 127.0.0.1, kubeadm told never to pull) on the node image provisioning chose;
 * the host port taken is bad input naming --kind-ingress-port. The cluster is ours from before the
 * create: one kind leaves half-made (Ctrl-C or SIGTERM during `kind create`, which installs no signal
 * handler and so never cleans up) is deleted too, and `kind delete cluster` of one that is not there
 * succeeds.
 */
export async function createClusterStep(up: KindUp): Promise<void> {
  const { run } = up;
  const { settings } = run;
  const nodeImage = run.provisioned?.nodeImage;
  const config = buildKindConfig({
    workers: settings.workers,
    ingressHostPort: settings.ingressHostPort,
    ...(nodeImage ? { nodeImage } : {}),
  });
  run.created = true;
  // Deleted by the engine watcher if the run's process dies (SIGKILL) before deleting it itself.
  await run.provisioned?.noteCluster?.({
    kindPath: run.provisioned.kindPath,
    name: settings.name,
    kubeconfigPath: settings.kubeconfigPath,
    ...(run.provisioned.env['KIND_EXPERIMENTAL_DOCKER_NETWORK'] === KIND_NETWORK
      ? { network: KIND_NETWORK }
      : {}),
  });
  // The admin credentials kind writes: a folder only we can read (mkdir fails on one planted there).
  if (settings.ownsKubeconfigDir) await mkdir(dirname(settings.kubeconfigPath), { mode: 0o700 });
  await run.tools
    .createCluster(settings.name, config, settings.waitS, settings.kubeconfigPath)
    .catch((err: unknown) => {
      throw explainCreateFailure(err, settings.ingressHostPort);
    });
  await chmod(settings.kubeconfigPath, 0o600).catch(() => undefined);
  run.hasNodes = true;
  settings.onKubeconfig?.(settings.kubeconfigPath);
}
