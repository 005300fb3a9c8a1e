import { buildKindConfig } from '../kind-config.ts';
import { explainCreateFailure } from '../kind-preflight.ts';
import type { KindTools } from '../kind-tools.ts';

/**
 * The cluster step: `kind create cluster` with our config (one control plane, the workers, the
 * gateway's nodePort on 127.0.0.1, kubeadm told never to pull) on the node image provisioning chose;
 * the host port taken is bad input naming --kind-ingress-port.
 */
export async function createClusterStep(options: {
  tools: KindTools;
  name: string;
  workers: number;
  ingressHostPort: number;
  nodeImage?: string;
  waitS: number;
  kubeconfigPath: string;
}): Promise<void> {
  const config = buildKindConfig({
    workers: options.workers,
    ingressHostPort: options.ingressHostPort,
    ...(options.nodeImage ? { nodeImage: options.nodeImage } : {}),
  });
  await options.tools
    .createCluster(options.name, config, options.waitS, options.kubeconfigPath)
    .catch((err: unknown) => {
      throw explainCreateFailure(err, options.ingressHostPort);
    });
}
