import type { V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';

/**
 * What a proxy needs to get its certificate from istiod, as the ztunnel and gateway charts mount it
 * (manifests/charts/ztunnel/templates/daemonset.yaml): a projected service-account token for the
 * istio-ca audience at /var/run/secrets/tokens/istio-token, the istio-ca-root-cert ConfigMap at
 * /var/run/secrets/istio, and the CA's TLS address. Env names are ztunnel's (CA_ROOT_CA, AUTH_TOKEN).
 */
export const CA_ENV: V1EnvVar[] = [
  { name: 'CA_ADDRESS', value: 'https://istiod.istio-system.svc:15012' },
  { name: 'CA_ROOT_CA', value: '/var/run/secrets/istio/root-cert.pem' },
  { name: 'AUTH_TOKEN', value: '/var/run/secrets/tokens/istio-token' },
];

export const CA_VOLUME_MOUNTS: V1VolumeMount[] = [
  { mountPath: '/var/run/secrets/istio', name: 'istiod-ca-cert' },
  { mountPath: '/var/run/secrets/tokens', name: 'istio-token' },
];

export const CA_VOLUMES: V1Volume[] = [
  {
    name: 'istio-token',
    projected: {
      sources: [
        { serviceAccountToken: { path: 'istio-token', expirationSeconds: 43200, audience: 'istio-ca' } },
      ],
    },
  },
  { name: 'istiod-ca-cert', configMap: { name: 'istio-ca-root-cert' } },
];
