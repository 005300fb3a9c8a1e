import { dumpYaml } from '@kubernetes/client-node';
import { GATEWAY_NODE_PORT, NODE_LABEL } from '../manifests/index.ts';

export interface KindConfigOptions {
  workers: number;
  /** Host port on 127.0.0.1 the gateway's nodePort is reachable at. */
  ingressHostPort: number;
  /** The node image every node runs (`nodes[].image`); kind's default when unset. */
  nodeImage?: string;
}

/**
 * kubeadm must never pull: every image it runs is in the node image under the name it asks for
 * (`kubeadm config images list`), and `imagePullPolicy: Never` makes a missing one an error at once
 * instead of minutes of ErrImagePull (kubeadm v1beta4 NodeRegistrationOptions.imagePullPolicy).
 */
const NO_PULL_PATCHES = [
  'kind: InitConfiguration\nnodeRegistration:\n  imagePullPolicy: Never\n',
  'kind: JoinConfiguration\nnodeRegistration:\n  imagePullPolicy: Never\n',
];

/**
 * A kind cluster (kind.x-k8s.io/v1alpha4): one control-plane node and `workers` workers, each worker
 * labelled with its name under NODE_LABEL like the local backend's nodes, and the gateway's nodePort
 * published on the host's loopback only.
 */
export function buildKindConfig(options: KindConfigOptions): string {
  const image = options.nodeImage ? { image: options.nodeImage } : {};
  const workers = Array.from({ length: options.workers }, (_, i) => ({
    role: 'worker',
    ...image,
    labels: { [NODE_LABEL]: `node-${String(i + 1)}` },
  }));
  return dumpYaml({
    kind: 'Cluster',
    apiVersion: 'kind.x-k8s.io/v1alpha4',
    kubeadmConfigPatches: NO_PULL_PATCHES,
    nodes: [
      {
        role: 'control-plane',
        ...image,
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
