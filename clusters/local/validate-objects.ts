import type { V1Container, V1PodTemplateSpec } from '@kubernetes/client-node';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { ClusterObject } from '../manifests/index.ts';
import { objectKey } from '../manifests/index.ts';
import { localImageOf } from './images.ts';
import { unsupportedVolume } from './pod-volumes.ts';

/**
 * The subset of the Kubernetes API the local backend implements. Anything else in a manifest is
 * refused with its path, rather than silently ignored: an experiment must not look like it ran with
 * a setting it did not have.
 */
type Shape = { [key: string]: Shape | true };

const PROBE: Shape = {
  httpGet: { path: true, port: true },
  initialDelaySeconds: true,
  periodSeconds: true,
  timeoutSeconds: true,
  failureThreshold: true,
  successThreshold: true,
};
const CONTAINER: Shape = {
  name: true,
  image: true,
  // Appended to the image's entrypoint (istio-proxy's `proxy router|sidecar`).
  args: true,
  env: true,
  ports: true,
  readinessProbe: PROBE,
  lifecycle: { preStop: { exec: { command: true }, sleep: { seconds: true } } },
  volumeMounts: true,
  // Read by the Downward API only (the gateway's ISTIO_CPU_LIMIT -> Envoy's concurrency); processes
  // here run without cgroup limits, which the README says. Requests are the scheduler's input, and
  // pods here are placed by nodeSelector alone: accepted, and nothing reads them.
  resources: { limits: { cpu: true }, requests: { cpu: true, memory: true } },
};
const TEMPLATE: Shape = {
  metadata: { labels: true, annotations: true },
  spec: {
    containers: true,
    serviceAccountName: true,
    terminationGracePeriodSeconds: true,
    volumes: true,
    nodeSelector: true,
  },
};
const META: Shape = { name: true, namespace: true, labels: true, annotations: true };
const SHAPES: Record<string, Shape> = {
  Deployment: {
    apiVersion: true,
    kind: true,
    metadata: META,
    spec: {
      replicas: true,
      selector: { matchLabels: true },
      strategy: { type: true, rollingUpdate: { maxSurge: true, maxUnavailable: true } },
      template: TEMPLATE,
    },
  },
  DaemonSet: {
    apiVersion: true,
    kind: true,
    metadata: META,
    spec: {
      selector: { matchLabels: true },
      updateStrategy: { type: true, rollingUpdate: { maxSurge: true, maxUnavailable: true } },
      template: TEMPLATE,
    },
  },
  Service: {
    apiVersion: true,
    kind: true,
    metadata: META,
    spec: { selector: true, ports: true, type: true },
  },
};
const FIELD_REFS = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.podIP',
  'status.hostIP',
]);

function refuse(object: ClusterObject, path: string, why: string): never {
  throw new HarnessError(
    ErrorCode.BadInput,
    `${objectKey(object)}: ${path} ${why}; the local backend implements the subset in clusters/local/validate-objects.ts (use --backend kind for the rest)`,
  );
}

function checkShape(object: ClusterObject, value: unknown, shape: Shape, path: string): void {
  if (value === undefined || value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    const allowed = shape[key];
    const here = path ? `${path}.${key}` : key;
    if (allowed === undefined) refuse(object, here, 'is not implemented');
    if (allowed !== true) checkShape(object, child, allowed, here);
  }
}

function checkContainer(
  object: ClusterObject,
  container: V1Container,
  path: string,
  extraImages: ReadonlySet<string>,
): void {
  checkShape(object, container, CONTAINER, path);
  if (!extraImages.has(container.image ?? ''))
    localImageOf(container.image ?? '', () =>
      refuse(
        object,
        `${path}.image`,
        `names an image with no local entrypoint (${JSON.stringify(container.image)})`,
      ),
    );
  container.env?.forEach((env, i) => {
    const fieldPath = env.valueFrom?.fieldRef?.fieldPath;
    const resource = env.valueFrom?.resourceFieldRef;
    const isCpuLimit =
      resource?.resource === 'limits.cpu' &&
      (resource.divisor === undefined || resource.divisor === '1' || resource.divisor === '0');
    if (env.valueFrom && !isCpuLimit && (!fieldPath || !FIELD_REFS.has(fieldPath)))
      refuse(
        object,
        `${path}.env[${String(i)}].valueFrom`,
        `is not implemented (only fieldRef to ${[...FIELD_REFS].join(', ')}, and resourceFieldRef to limits.cpu in whole cores)`,
      );
  });
  const cpu = container.resources?.limits?.['cpu'];
  if (cpu !== undefined && !/^\d+(\.\d+)?m?$/.test(cpu))
    refuse(object, `${path}.resources.limits.cpu`, `is not a CPU quantity (${JSON.stringify(cpu)})`);
  const port = container.readinessProbe?.httpGet?.port;
  if (port !== undefined && typeof port !== 'number')
    refuse(
      object,
      `${path}.readinessProbe.httpGet.port`,
      'must be a number here (named ports are not implemented)',
    );
}

function checkTemplate(
  object: ClusterObject,
  template: V1PodTemplateSpec | undefined,
  extraImages: ReadonlySet<string>,
): void {
  const path = 'spec.template';
  checkShape(object, template, TEMPLATE, path);
  const spec = template?.spec;
  if (!spec?.containers.length) refuse(object, `${path}.spec.containers`, 'must list at least one container');
  spec.containers.forEach((c, i) => {
    checkContainer(object, c, `${path}.spec.containers[${String(i)}]`, extraImages);
  });
  spec.volumes?.forEach((v, i) => {
    const unsupported = unsupportedVolume(v);
    if (unsupported)
      refuse(object, `${path}.spec.volumes[${String(i)}]`, `is not implemented (${unsupported})`);
  });
  spec.containers.forEach((c, i) =>
    c.volumeMounts?.forEach((m, j) => {
      if (!spec.volumes?.some((v) => v.name === m.name))
        refuse(
          object,
          `${path}.spec.containers[${String(i)}].volumeMounts[${String(j)}]`,
          `names no volume of the pod (${JSON.stringify(m.name)})`,
        );
    }),
  );
}

/**
 * Throws a BadInput HarnessError naming the first unsupported field. `extraImages`: images this
 * cluster runs beyond the built-in ones (istio/ztunnel's binary when given).
 */
export function validateClusterObject(
  object: ClusterObject,
  extraImages: ReadonlySet<string> = new Set(),
): void {
  const shape = SHAPES[object.kind ?? ''];
  if (!shape) refuse(object, 'kind', 'is not implemented (Deployment, DaemonSet, Service only)');
  checkShape(object, object, shape, '');
  if (!object.metadata?.name) refuse(object, 'metadata.name', 'is required');
  if (object.kind !== 'Service')
    checkTemplate(
      object,
      (object as { spec?: { template?: V1PodTemplateSpec } }).spec?.template,
      extraImages,
    );
}
