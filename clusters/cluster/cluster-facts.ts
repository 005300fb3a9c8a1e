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

/** One thing a run does, as the API authorizes it (one SelfSubjectAccessReview per verb). */
export interface AccessNeed {
  verbs: string[];
  resource: string;
  group?: string;
  subresource?: string;
  /** Undefined: cluster-wide (or every namespace). */
  namespace?: string;
  /** One object only (RBAC's resourceNames). */
  name?: string;
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
  /** Each need with the verbs the API denied (none: allowed) and its reason for the first denial. */
  access: (AccessNeed & { denied: string[]; reason: string })[];
}

/** The groups whose route kinds can send the gateway's traffic to the run's httpbin. */
export const ROUTE_API_GROUPS = ['networking.istio.io', 'gateway.networking.k8s.io'];

/**
 * Every request a run makes on an existing cluster, as RBAC authorizes it: its own namespace made,
 * leased and deleted; the objects in it applied (server-side apply: patch, and create for a new
 * object); its pods read, exec'd into (fortio's files) and deleted; the cluster's pods, slices,
 * workloads, Services and nodes listed and watched (the lifecycle events); Istio's pods' logs; E1's
 * patch of the one DaemonSet. `cleanup` lists namespaces. SelfSubjectAccessReview and discovery are
 * every authenticated user's (system:basic-user, system:discovery). rbac.ts builds the roles from
 * this list, and a test holds every request of a run against it.
 */
export function accessNeeds(
  istioNamespace: string,
  runNamespace: string,
  gatewayNamespace = istioNamespace,
): AccessNeed[] {
  const applied = ['create', 'patch'];
  const run = runNamespace;
  const watched = (resource: string, group?: string, why = 'watched, as on kind (lifecycle events)') => ({
    verbs: ['list', 'watch'],
    resource,
    ...(group ? { group } : {}),
    why,
  });
  return [
    {
      verbs: ['create', 'get', 'patch', 'delete', 'list'],
      resource: 'namespaces',
      why: "the run's namespace made (never taken over), its lease renewed, deleted at the end; cleanup lists",
    },
    { verbs: applied, resource: 'serviceaccounts', namespace: run, why: "httpbin's ServiceAccount" },
    {
      verbs: applied,
      resource: 'deployments',
      group: 'apps',
      namespace: run,
      why: 'go-httpbin, its restart (E2)',
    },
    {
      verbs: ['patch'],
      resource: 'deployments',
      group: 'apps',
      subresource: 'scale',
      namespace: run,
      why: "httpbin's scale",
    },
    { verbs: applied, resource: 'services', namespace: run, why: "go-httpbin's Service" },
    {
      verbs: [...applied, 'get', 'delete'],
      resource: 'pods',
      namespace: run,
      why: "fortio's and the probe's pods, E3's client pod",
    },
    { verbs: ['get'], resource: 'pods', subresource: 'log', namespace: run, why: "the run's pods' logs" },
    {
      verbs: ['create', 'get'],
      resource: 'pods',
      subresource: 'exec',
      namespace: run,
      why: "fortio's result files read from its pod (cat over exec)",
    },
    {
      verbs: applied,
      resource: 'gateways',
      group: 'networking.istio.io',
      namespace: run,
      why: "the gateway's server for the run's host",
    },
    {
      verbs: applied,
      resource: 'virtualservices',
      group: 'networking.istio.io',
      namespace: run,
      why: "the route from the gateway to the run's httpbin",
    },
    watched('pods'),
    watched('endpointslices', 'discovery.k8s.io', 'watched (when the gateway stops sending to a pod)'),
    watched('deployments', 'apps', "watched (rollouts; istiod's Deployment found)"),
    watched('daemonsets', 'apps', "watched (ztunnel's rollout)"),
    watched('services'),
    watched('nodes', undefined, 'watched (the nodes the pods run on)'),
    {
      verbs: ['get'],
      resource: 'daemonsets',
      group: 'apps',
      namespace: istioNamespace,
      why: "ztunnel's and istio-cni's versions and readiness (the preflight)",
    },
    {
      verbs: ['get'],
      resource: 'pods',
      subresource: 'log',
      namespace: istioNamespace,
      why: "ztunnel's and istiod's logs over the run (the explanation by cause)",
    },
    ...(gatewayNamespace === istioNamespace
      ? []
      : [
          {
            verbs: ['get'],
            resource: 'pods',
            subresource: 'log',
            namespace: gatewayNamespace,
            why: "the gateway's access log over the run",
          },
        ]),
    {
      verbs: ['get'],
      resource: 'services',
      namespace: gatewayNamespace,
      why: "the gateway's Service (its address, ports and selector)",
    },
    {
      verbs: ['patch'],
      resource: 'daemonsets',
      group: 'apps',
      namespace: istioNamespace,
      name: 'ztunnel',
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
    accessNeeds(ns, options.runNamespace, gateway.namespace).map(async (need) => {
      const reviews = await Promise.all(
        need.verbs.map(async (verb) => {
          const review = await authz.createSelfSubjectAccessReview({
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: {
                resourceAttributes: {
                  verb,
                  resource: need.resource,
                  ...(need.group ? { group: need.group } : {}),
                  ...(need.subresource ? { subresource: need.subresource } : {}),
                  ...(need.namespace ? { namespace: need.namespace } : {}),
                  ...(need.name ? { name: need.name } : {}),
                },
              },
            },
          });
          return { verb, allowed: review.status?.allowed ?? false, reason: review.status?.reason ?? '' };
        }),
      );
      const denied = reviews.filter((r) => !r.allowed);
      return { ...need, denied: denied.map((r) => r.verb), reason: denied[0]?.reason ?? '' };
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
