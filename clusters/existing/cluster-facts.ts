// What an existing cluster has that an experiment on it needs (issue 45's preflight), read through
// the API with the user's own credentials and nothing written: the Kubernetes version; Istio's
// control plane and ambient data plane as its charts install them (istiod's Deployment, the ztunnel
// and istio-cni-node DaemonSets, in the Istio namespace), with their images; the ingress gateway
// Service and its ready endpoints; which routing APIs the cluster serves (Istio's VirtualService,
// Gateway API's HTTPRoute); and, by SelfSubjectAccessReview, whether the user may do each thing a
// run does.
import {
  ApisApi,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  VersionApi,
} from '@kubernetes/client-node';
import type { KubeConfig, V1DaemonSet } from '@kubernetes/client-node';
import { isNotFound } from './cluster-flags.ts';

/** One thing a run does, as the API authorizes it. */
export interface AccessNeed {
  verb: string;
  resource: string;
  group?: string;
  subresource?: string;
  /** Undefined: cluster-wide (or every namespace). */
  namespace?: string;
  /** What the run does with it. */
  why: string;
  /** Only E1 (the ztunnel DaemonSet's restart) needs it. */
  onlyFor?: 'E1';
}

export interface ComponentFacts {
  namespace: string;
  name: string;
  image: string;
  /** Pods ready / desired (DaemonSet: number ready / desired scheduled). */
  ready: number;
  desired: number;
}

export interface ClusterFacts {
  context: string;
  server: string;
  kubernetesVersion: string;
  istioNamespace: string;
  istiod: ComponentFacts | undefined;
  ztunnel: ComponentFacts | undefined;
  istioCni: ComponentFacts | undefined;
  gateway:
    | {
        namespace: string;
        name: string;
        clusterIp: string;
        ports: number[];
        readyEndpoints: number;
        /** The Service's pod selector: the labels an Istio Gateway selects the gateway's pods by. */
        selector: Record<string, string>;
      }
    | undefined;
  /** API groups served: networking.istio.io (VirtualService), gateway.networking.k8s.io (HTTPRoute). */
  routeApis: string[];
  access: (AccessNeed & { allowed: boolean; reason: string })[];
}

/** The groups whose route kinds can send the gateway's traffic to the run's httpbin. */
export const ROUTE_API_GROUPS = ['networking.istio.io', 'gateway.networking.k8s.io'];

/** What a run does on an existing cluster (issue 45: its own namespace, and only that, plus reads). */
export function accessNeeds(istioNamespace: string, runNamespace: string): AccessNeed[] {
  return [
    { verb: 'create', resource: 'namespaces', why: 'a namespace of its own per run, labelled for ambient' },
    { verb: 'delete', resource: 'namespaces', why: 'that namespace removed at the end' },
    { verb: 'create', resource: 'deployments', group: 'apps', namespace: runNamespace, why: 'go-httpbin' },
    { verb: 'create', resource: 'services', namespace: runNamespace, why: "go-httpbin's Service" },
    { verb: 'create', resource: 'pods', namespace: runNamespace, why: 'the fortio client pod' },
    {
      verb: 'create',
      resource: 'virtualservices',
      group: 'networking.istio.io',
      namespace: runNamespace,
      why: "the route from the gateway to the run's httpbin (with a Gateway)",
    },
    {
      verb: 'create',
      resource: 'gateways',
      group: 'networking.istio.io',
      namespace: runNamespace,
      why: "the gateway's server for the run's host",
    },
    { verb: 'watch', resource: 'pods', why: 'pods watched, as on kind (lifecycle events)' },
    {
      verb: 'watch',
      resource: 'endpointslices',
      group: 'discovery.k8s.io',
      why: 'EndpointSlices watched (when the gateway stops sending to a pod)',
    },
    {
      verb: 'get',
      resource: 'pods',
      subresource: 'log',
      namespace: istioNamespace,
      why: "ztunnel's and the gateway's logs over the run (the explanation by cause)",
    },
    {
      verb: 'patch',
      resource: 'daemonsets',
      group: 'apps',
      namespace: istioNamespace,
      why: "E1: the ztunnel DaemonSet's rollout restart (kubectl's patch)",
      onlyFor: 'E1',
    },
  ];
}

/** The tag of an image reference (the version its chart installed), or the reference itself. */
export function imageVersion(image: string): string {
  const name = image.split('@')[0] ?? image;
  const tag = /:([^/:]+)$/.exec(name)?.[1];
  return tag ?? image;
}

async function daemonSet(
  apps: AppsV1Api,
  namespace: string,
  name: string,
): Promise<ComponentFacts | undefined> {
  const ds: V1DaemonSet | undefined = await apps
    .readNamespacedDaemonSet({ namespace, name })
    .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err as Error)));
  if (!ds) return undefined;
  return {
    namespace,
    name,
    image: ds.spec?.template.spec?.containers[0]?.image ?? '',
    ready: ds.status?.numberReady ?? 0,
    desired: ds.status?.desiredNumberScheduled ?? 0,
  };
}

/** Reads the facts; an API server that cannot be reached rejects (the caller says so). */
export async function readClusterFacts(
  kc: KubeConfig,
  options: { istioNamespace: string; gateway: { namespace: string; name: string }; runNamespace: string },
): Promise<ClusterFacts> {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const { istioNamespace: ns, gateway } = options;
  const version = await kc.makeApiClient(VersionApi).getCode();
  const istiods = await apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'app=istiod' });
  const istiod = istiods.items[0];
  const service = await core
    .readNamespacedService(gateway)
    .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err as Error)));
  const slices = service
    ? await kc.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({
        namespace: gateway.namespace,
        labelSelector: `kubernetes.io/service-name=${gateway.name}`,
      })
    : { items: [] };
  const groups = await kc.makeApiClient(ApisApi).getAPIVersions();
  const authz = kc.makeApiClient(AuthorizationV1Api);
  const access = await Promise.all(
    accessNeeds(ns, options.runNamespace).map(async (need) => {
      const review = await authz.createSelfSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              verb: need.verb,
              resource: need.resource,
              ...(need.group ? { group: need.group } : {}),
              ...(need.subresource ? { subresource: need.subresource } : {}),
              ...(need.namespace ? { namespace: need.namespace } : {}),
            },
          },
        },
      });
      return { ...need, allowed: review.status?.allowed ?? false, reason: review.status?.reason ?? '' };
    }),
  );
  return {
    context: kc.getCurrentContext(),
    server: kc.getCurrentCluster()?.server ?? '',
    kubernetesVersion: version.gitVersion,
    istioNamespace: ns,
    istiod: istiod
      ? {
          namespace: ns,
          name: istiod.metadata?.name ?? '',
          image: istiod.spec?.template.spec?.containers[0]?.image ?? '',
          ready: istiod.status?.readyReplicas ?? 0,
          desired: istiod.spec?.replicas ?? 1,
        }
      : undefined,
    ztunnel: await daemonSet(apps, ns, 'ztunnel'),
    istioCni: await daemonSet(apps, ns, 'istio-cni-node'),
    gateway: service
      ? {
          ...gateway,
          clusterIp: service.spec?.clusterIP ?? '',
          ports: (service.spec?.ports ?? []).map((p) => p.port),
          selector: service.spec?.selector ?? {},
          readyEndpoints: slices.items
            .flatMap((s) => s.endpoints ?? [])
            .filter((e) => e.conditions?.ready !== false).length,
        }
      : undefined,
    routeApis: groups.groups.map((g) => g.name).filter((g) => ROUTE_API_GROUPS.includes(g)),
    access,
  };
}
