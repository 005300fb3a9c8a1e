import type { V1Container, V1EnvVar, V1EnvVarSource } from '@kubernetes/client-node';
import { IMAGES } from './images.ts';
import { CA_ENV, CA_VOLUME_MOUNTS } from './mesh-credentials.ts';

/** Envoy's mTLS ADS on the control plane (mesh/control-plane ENVOY_XDS_PORT). */
export const ENVOY_XDS_ADDRESS = 'istiod.istio-system.svc:15011';

/**
 * The istio-proxy container as Istio's injection template and gateway chart write it: pilot-agent
 * `proxy router|sidecar` with the pod's identity and address from the Downward API, the CA mounts,
 * ISTIO_CPU_LIMIT (Envoy's concurrency) and `extra` settings (ISTIO_META_*, drain variables).
 */
export function buildIstioProxyContainer(options: {
  type: 'router' | 'sidecar';
  env: V1EnvVar[];
  ports: V1Container['ports'];
  cpuLimitCores?: number;
  readiness: boolean;
}): V1Container {
  const field = (fieldPath: string): V1EnvVarSource => ({ fieldRef: { fieldPath } });
  return {
    name: 'istio-proxy',
    image: IMAGES.proxy,
    args: ['proxy', options.type],
    env: [
      { name: 'XDS_ADDRESS', value: ENVOY_XDS_ADDRESS },
      ...CA_ENV,
      { name: 'INSTANCE_IP', valueFrom: field('status.podIP') },
      { name: 'POD_NAME', valueFrom: field('metadata.name') },
      { name: 'POD_NAMESPACE', valueFrom: field('metadata.namespace') },
      { name: 'SERVICE_ACCOUNT', valueFrom: field('spec.serviceAccountName') },
      { name: 'ISTIO_CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
      ...options.env,
    ],
    volumeMounts: CA_VOLUME_MOUNTS,
    ports: [...(options.ports ?? []), { containerPort: 15090, name: 'http-envoy-prom' }],
    ...(options.cpuLimitCores === undefined
      ? {}
      : { resources: { limits: { cpu: `${String(options.cpuLimitCores * 1000)}m` } } }),
    ...(options.readiness
      ? { readinessProbe: { httpGet: { path: '/healthz/ready', port: 15021 }, periodSeconds: 2 } }
      : {}),
  };
}
