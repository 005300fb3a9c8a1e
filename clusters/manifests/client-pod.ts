import type { V1Pod } from '@kubernetes/client-node';
import { KIND_LOAD_PLACEMENT, outOfMeshPod } from './fortio-pod.ts';
import type { LoadPodPlacement } from './fortio-pod.ts';
import { imageFrom, IMAGES } from './images.ts';

/** A program of ours run as a pod in the load namespace, outside the mesh (ClusterBackend.startClientPod). */
export interface ClientPodOptions {
  name: string;
  /** The program under /app, e.g. ['node', 'apps/long-lived-client/main.ts']. */
  command: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** Default: kind's (the load namespace, our image loaded into the nodes). */
  placement?: LoadPodPlacement;
}

/** Seconds between the pod's SIGTERM and its SIGKILL: the client writes its result at SIGTERM. */
export const CLIENT_POD_GRACE_S = 10;

/**
 * A client of ours as a pod outside the mesh (`istio.io/dataplane-mode: none`, in the load namespace
 * that carries no ambient label, as the fortio pod): its connections reach the pods' own addresses as
 * any pod's do, captured on arrival by the destination pod's ztunnel. The client image (our app/,
 * loaded into the nodes, never pulled), run once.
 */
export function buildClientPod(options: ClientPodOptions): V1Pod {
  const placement = options.placement ?? KIND_LOAD_PLACEMENT;
  return outOfMeshPod(
    options.name,
    'load-client',
    {
      terminationGracePeriodSeconds: CLIENT_POD_GRACE_S,
      containers: [
        {
          name: 'client',
          image: imageFrom(IMAGES.client, placement.imageRegistry),
          imagePullPolicy: placement.imagePullPolicy,
          command: [...options.command],
          env: Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
        },
      ],
    },
    placement,
  );
}
