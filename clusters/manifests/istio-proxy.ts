import type { V1Container, V1EnvVar, V1EnvVarSource } from '@kubernetes/client-node';
import { IMAGES } from './images.ts';
import { CA_ENV, CA_VOLUME_MOUNTS } from './mesh-credentials.ts';

/** Envoy's mTLS ADS on the control plane (mesh/control-plane ENVOY_XDS_PORT). */
export const ENVOY_XDS_ADDRESS = 'istiod.istio-system.svc:15011';

/**
 * What every istio-proxy asks the scheduler for, as Istio sets it: `resources.requests` in the gateway
 * chart (manifests/charts/gateway/values.yaml) and `global.proxy.resources.requests` for injected
 * sidecars (manifests/charts/istio-control/istio-discovery/values.yaml) are both cpu 100m, memory
 * 128Mi. Explicit, because a container that sets only a limit gets requests equal to it (core v1
 * defaults): a 2000m limit would ask for 2 CPUs, more than a 2-vCPU kind node has beside kindnet's
 * 100m, and the gateway would stay Pending.
 */
export const ISTIO_PROXY_REQUESTS = { cpu: '100m', memory: '128Mi' } as const;

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
    // The limit alone sets ISTIO_CPU_LIMIT (the Downward API reads limits.cpu), hence Envoy's workers.
    resources: {
      requests: { ...ISTIO_PROXY_REQUESTS },
      ...(options.cpuLimitCores === undefined
        ? {}
        : { limits: { cpu: `${String(options.cpuLimitCores * 1000)}m` } }),
    },
    ...(options.readiness
      ? { readinessProbe: { httpGet: { path: '/healthz/ready', port: 15021 }, periodSeconds: 2 } }
      : {}),
  };
}
