// What a run creates on an existing cluster (issue 45), and only that: a namespace of its own,
// labelled for ambient and with the harness's owner labels, go-httpbin in it (the standard
// topology's httpbin moved there), and the route from the cluster's ingress gateway to it: an Istio
// Gateway selecting the gateway's pods and a VirtualService bound to it, for a host of the run's own,
// as a mesh engineer routes istio-ingressgateway (networking.istio.io/v1; istio.io/api
// networking/v1/gateway.proto, virtual_service.proto). Every object carries the owner labels, so
// `npm run cluster -- cleanup` finds what a crashed run left.
import { randomBytes } from 'node:crypto';
import type { KubernetesObject, V1Namespace, V1ServiceAccount } from '@kubernetes/client-node';
import type { ClusterObject } from '../manifests/index.ts';
import { DATAPLANE_MODE_LABEL, HTTPBIN_SERVICE_PORT, imageFrom, isDeployment } from '../manifests/index.ts';
import {
  EXPIRES_ANNOTATION,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  RUN_LABEL,
  RUN_NAMESPACE_PREFIX,
} from './run-ownership.ts';

/** The standard topology's namespace for the workload (clusters/manifests): moved into the run's. */
const TOPOLOGY_NAMESPACE = 'default';

export interface RunObjects {
  /** The run's namespace (a DNS label, `ztunnel-harness-<time>-<random>`). */
  namespace: string;
  /** The host the route is for; the load sends it as `Host`. */
  host: string;
  /** The gateway Service's pod selector (the Gateway's `selector`): never empty (every gateway). */
  gatewaySelector: Record<string, string>;
  /** The run's lease: when its namespace is expired unless renewed (run-ownership.ts). */
  expiresAt: string;
}

export function ownerLabels(namespace: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [RUN_LABEL]: namespace };
}

/** A namespace name for a run started at `wallMs`, unique with a random suffix. */
export function runNamespaceName(wallMs: number, random: () => number = Math.random): string {
  const stamp = new Date(wallMs).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const suffix = Math.floor(random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${RUN_NAMESPACE_PREFIX}${stamp.toLowerCase()}-${suffix}`;
}

/**
 * The host the run's route answers: one of its own, so it never shadows a route of the user's, and
 * random (128 bits), so only who was told it (the run, its output) can reach the run's httpbin
 * through the gateway; the namespace's name, which anyone who lists namespaces sees, does not give it.
 */
export const runHost = (random: (bytes: number) => Buffer = randomBytes): string =>
  `httpbin-${random(16).toString('hex')}.ztunnel-harness.test`;

/** The namespace (ambient), httpbin's ServiceAccount, the Gateway and the VirtualService. */
export function buildRunObjects(run: RunObjects): [V1Namespace, ...KubernetesObject[]] {
  const labels = ownerLabels(run.namespace);
  const meta = (name: string) => ({ name, namespace: run.namespace, labels });
  const namespace: V1Namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: run.namespace,
      labels: { ...labels, [DATAPLANE_MODE_LABEL]: 'ambient' },
      annotations: { [EXPIRES_ANNOTATION]: run.expiresAt },
    },
  };
  const serviceAccount: V1ServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: meta('httpbin'),
  };
  const gateway = {
    apiVersion: 'networking.istio.io/v1',
    kind: 'Gateway',
    metadata: meta('harness-gateway'),
    spec: {
      selector: run.gatewaySelector,
      servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: [run.host] }],
    },
  };
  const virtualService = {
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: meta('httpbin'),
    spec: {
      hosts: [run.host],
      gateways: [`${run.namespace}/harness-gateway`],
      http: [
        {
          route: [
            {
              destination: {
                host: `httpbin.${run.namespace}.svc.cluster.local`,
                port: { number: HTTPBIN_SERVICE_PORT },
              },
            },
          ],
        },
      ],
    },
  };
  return [namespace, serviceAccount, gateway, virtualService];
}

/**
 * The standard topology made the run's: its workload (httpbin's Deployment and Service, in
 * `default`) moved into the run's namespace with the owner labels, images from `imageRegistry`
 * when given; what the cluster already runs (ztunnel's DaemonSet, the gateway, in istio-system) left
 * out: the run uses the cluster's own.
 */
export function adaptTopology(
  objects: readonly ClusterObject[],
  options: { namespace: string; imageRegistry?: string | undefined },
): ClusterObject[] {
  const labels = ownerLabels(options.namespace);
  return objects
    .filter((o) => (o.metadata?.namespace ?? TOPOLOGY_NAMESPACE) === TOPOLOGY_NAMESPACE)
    .map((o) => {
      const copy = structuredClone(o);
      copy.metadata = {
        ...copy.metadata,
        namespace: options.namespace,
        labels: { ...copy.metadata?.labels, ...labels },
      };
      if (isDeployment(copy))
        for (const c of copy.spec?.template.spec?.containers ?? [])
          if (c.image) c.image = imageFrom(c.image, options.imageRegistry);
      return copy;
    });
}

/** A ref in the standard topology's namespaces, as it is on this cluster. */
export function mapNamespace(namespace: string, scope: { run: string; istio: string }): string {
  if (namespace === TOPOLOGY_NAMESPACE) return scope.run;
  if (namespace === 'istio-system') return scope.istio;
  return namespace;
}
