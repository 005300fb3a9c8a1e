import type {
  V1DaemonSet,
  V1DaemonSetUpdateStrategy,
  V1Deployment,
  V1DeploymentStrategy,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Service,
  V1ServicePort,
} from '@kubernetes/client-node';

/** A pod's terminationGracePeriodSeconds when its spec says none (Kubernetes' PodSpec default). */
export const DEFAULT_TERMINATION_GRACE_S = 30;

interface Workload {
  name: string;
  namespace: string;
  /** The workload's labels: its selector, carried by its pods and selected by its Service. */
  labels: Readonly<Record<string, string>>;
  podLabels?: Readonly<Record<string, string>>;
  podAnnotations?: Readonly<Record<string, string>>;
  spec: V1PodSpec;
}

/**
 * The pods' template every workload here writes: the workload's labels (plus `podLabels`, e.g. the
 * dataplane mode) and `podAnnotations`, selected by the workload's own labels.
 */
function podTemplate(options: Workload): {
  selector: { matchLabels: Record<string, string> };
  template: V1PodTemplateSpec;
} {
  const labels = { ...options.labels };
  return {
    selector: { matchLabels: labels },
    template: {
      metadata: {
        labels: { ...labels, ...options.podLabels },
        ...(options.podAnnotations ? { annotations: { ...options.podAnnotations } } : {}),
      },
      spec: options.spec,
    },
  };
}

/** A Deployment as every manifest here writes one: one replica unless said. */
export function deployment(
  options: Workload & { replicas?: number; strategy?: V1DeploymentStrategy },
): V1Deployment {
  const { selector, template } = podTemplate(options);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: options.name, namespace: options.namespace, labels: { ...options.labels } },
    spec: {
      replicas: options.replicas ?? 1,
      selector,
      ...(options.strategy ? { strategy: options.strategy } : {}),
      template,
    },
  };
}

/** A DaemonSet as the node components here (ztunnel, istio-cni) are written. */
export function daemonSet(options: Workload & { updateStrategy: V1DaemonSetUpdateStrategy }): V1DaemonSet {
  const { selector, template } = podTemplate(options);
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: options.name, namespace: options.namespace, labels: { ...options.labels } },
    spec: { selector, updateStrategy: options.updateStrategy, template },
  };
}

/** The Service in front of a workload: it selects the workload's pods by the workload's labels. */
export function service(options: {
  name: string;
  namespace: string;
  labels: Readonly<Record<string, string>>;
  ports: V1ServicePort[];
  type?: 'NodePort';
}): V1Service {
  const labels = { ...options.labels };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: { selector: labels, ...(options.type ? { type: options.type } : {}), ports: options.ports },
  };
}
