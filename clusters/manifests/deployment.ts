import type { V1Deployment, V1DeploymentStrategy, V1PodSpec } from '@kubernetes/client-node';

/** A pod's terminationGracePeriodSeconds when its spec says none (Kubernetes' PodSpec default). */
export const DEFAULT_TERMINATION_GRACE_S = 30;

/**
 * A Deployment as every manifest here writes one: its labels select its pods, which carry them
 * (plus `podLabels`, e.g. the dataplane mode) and `podAnnotations`; one replica unless said.
 */
export function deployment(options: {
  name: string;
  namespace: string;
  labels: Readonly<Record<string, string>>;
  replicas?: number;
  strategy?: V1DeploymentStrategy;
  podLabels?: Readonly<Record<string, string>>;
  podAnnotations?: Readonly<Record<string, string>>;
  spec: V1PodSpec;
}): V1Deployment {
  const labels = { ...options.labels };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: {
      replicas: options.replicas ?? 1,
      selector: { matchLabels: labels },
      ...(options.strategy ? { strategy: options.strategy } : {}),
      template: {
        metadata: {
          labels: { ...labels, ...options.podLabels },
          ...(options.podAnnotations ? { annotations: { ...options.podAnnotations } } : {}),
        },
        spec: options.spec,
      },
    },
  };
}
