import { dumpYaml } from '@kubernetes/client-node';
import { GATEWAY_NODE_PORT, NODE_LABEL } from '../manifests/index.ts';

export interface KindConfigOptions {
  workers: number;
  /** Host port on 127.0.0.1 the gateway's nodePort is reachable at. */
  ingressHostPort: number;
}

/**
 * A kind cluster (kind.x-k8s.io/v1alpha4): one control-plane node and `workers` workers, each worker
 * labelled with its name under NODE_LABEL like the local backend's nodes, and the gateway's nodePort
 * published on the host's loopback only.
 */
export function buildKindConfig(options: KindConfigOptions): string {
  const workers = Array.from({ length: options.workers }, (_, i) => ({
    role: 'worker',
    labels: { [NODE_LABEL]: `node-${String(i + 1)}` },
  }));
  return dumpYaml({
    kind: 'Cluster',
    apiVersion: 'kind.x-k8s.io/v1alpha4',
    nodes: [
      {
        role: 'control-plane',
        extraPortMappings: [
          {
            containerPort: GATEWAY_NODE_PORT,
            hostPort: options.ingressHostPort,
            listenAddress: '127.0.0.1',
            protocol: 'TCP',
          },
        ],
      },
      ...workers,
    ],
  });
}
