import type { V1Deployment, V1Lifecycle, V1Service } from '@kubernetes/client-node';
import { DATAPLANE_MODE_LABEL, IMAGES } from './images.ts';

export interface HttpbinManifestOptions {
  replicas: number;
  /** ambient: pods enrolled in the mesh; off: plain pods (the 1.28 report's control arm). */
  mesh: 'ambient' | 'off';
  /** Kubernetes' default is 30 s. */
  graceS?: number;
  /** The 1.28 thread's workaround: a preStop sleep before SIGTERM. */
  preStopSleepS?: number;
  /** Extra container environment (e.g. IGNORE_SIGTERM=1 in tests). */
  env?: Record<string, string>;
}

export const HTTPBIN_PORT = 8080;
export const HTTPBIN_SERVICE_PORT = 8000;

/** Istio's samples/httpbin (go-httpbin on 8080, Service port 8000), with a readiness probe. */
export function buildHttpbin(options: HttpbinManifestOptions): [V1Deployment, V1Service] {
  const labels = { app: 'httpbin' };
  const lifecycle: V1Lifecycle | undefined =
    options.preStopSleepS === undefined
      ? undefined
      : { preStop: { sleep: { seconds: options.preStopSleepS } } };
  const podLabels = options.mesh === 'ambient' ? { ...labels, [DATAPLANE_MODE_LABEL]: 'ambient' } : labels;
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'httpbin', namespace: 'default', labels },
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: labels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: podLabels },
        spec: {
          serviceAccountName: 'httpbin',
          ...(options.graceS === undefined ? {} : { terminationGracePeriodSeconds: options.graceS }),
          containers: [
            {
              name: 'httpbin',
              image: IMAGES.httpbin,
              ports: [{ containerPort: HTTPBIN_PORT, name: 'http' }],
              env: [
                { name: 'PORT', value: String(HTTPBIN_PORT) },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                ...Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
              ],
              readinessProbe: { httpGet: { path: '/get', port: HTTPBIN_PORT }, periodSeconds: 10 },
              ...(lifecycle ? { lifecycle } : {}),
            },
          ],
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'httpbin', namespace: 'default', labels },
    spec: {
      selector: labels,
      ports: [{ name: 'http', port: HTTPBIN_SERVICE_PORT, targetPort: HTTPBIN_PORT }],
    },
  };
  return [deployment, service];
}
