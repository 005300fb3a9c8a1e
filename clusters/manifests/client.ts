import { deployment } from './workload.ts';
import type { V1Deployment } from '@kubernetes/client-node';
import { HTTPBIN_SERVICE_PORT } from './httpbin.ts';
import { DATAPLANE_MODE_LABEL, IMAGES, NODE_LABEL, POD_NETWORK_ANNOTATION } from './images.ts';

export interface ClientManifestOptions {
  /** Requests per second, each on a new app connection. */
  rps: number;
  /** The node it runs on (default node-1, beside the gateway). */
  node?: string;
  /** A network namespace of its own (the local backend's --netns). */
  ownNetns?: boolean;
}

/**
 * A meshed client (ambient) calling httpbin's Service: ztunnel-to-ztunnel HBONE traffic, the kind
 * seed 003's per-pod drain options are about (Istio's samples/sleep in spirit).
 */
export function buildClient(options: ClientManifestOptions): V1Deployment {
  const labels = { app: 'client' };
  return deployment({
    name: 'client',
    namespace: 'default',
    labels,
    podLabels: { [DATAPLANE_MODE_LABEL]: 'ambient' },
    ...(options.ownNetns ? { podAnnotations: { [POD_NETWORK_ANNOTATION]: 'netns' } } : {}),
    spec: {
      serviceAccountName: 'client',
      nodeSelector: { [NODE_LABEL]: options.node ?? 'node-1' },
      containers: [
        {
          name: 'client',
          image: IMAGES.client,
          env: [
            { name: 'TARGET', value: `httpbin.default.svc:${String(HTTPBIN_SERVICE_PORT)}` },
            { name: 'RPS', value: String(options.rps) },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          ],
        },
      ],
    },
  });
}
