import { isIPv4 } from 'node:net';
import { CoreV1Api, makeInformer } from '@kubernetes/client-node';
import type { Informer, KubeConfig, KubernetesObject, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Logger } from '../../lib/index.ts';
import {
  AMBIENT_REDIRECTION_ANNOTATION,
  AMBIENT_REDIRECTION_ENABLED,
  DATAPLANE_MODE_LABEL,
  HBONE_PORT,
} from '../workload.ts';
import type { ClusterSource, PodView, RoutingView, ServiceView } from './cluster-source.ts';
import { istioConfigViewOf, makeRoutingInformers, servesRoutingApi } from './routing-informers.ts';
import type { RoutingInformer } from './routing-informers.ts';

export interface KubeSourceOptions {
  /**
   * pod: HBONE to a pod terminates on the pod's address (in-pod ztunnel). node: on its node's
   * ztunnel (`hostIP:15008`, node-address mode on kind), sent to clients as the tunnel address.
   */
  tunnel: 'pod' | 'node';
  /** Told whether the routing API (Gateway, VirtualService) is served, once, at start. */
  log?: Logger;
}

export interface KubeClusterSource extends ClusterSource {
  routing(): RoutingView;
  /**
   * Lists pods and services, then watches them (client-node informers); Gateways and VirtualServices
   * too where the API server serves networking.istio.io/v1.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A watch failed for good; returns unsubscribe. */
  onError(listener: (err: Error) => void): () => void;
}

const isReady = (pod: V1Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * istiod's view of one pod, host-network pods included: the CA's node authorizer looks ztunnel's own
 * pod up in this list (istiod's `authenticateImpersonation`, security/pkg/server/ca/node_auth.go,
 * reads a pod informer that filters nothing by network), and ztunnel on kind is hostNetwork.
 * Discovery leaves host-network pods out (build-discovery.ts).
 */
export function podViewOf(pod: V1Pod, options: KubeSourceOptions): PodView {
  const hostIp = pod.status?.hostIP ?? '';
  const phase = pod.status?.phase ?? 'Pending';
  const isHostNetwork = pod.spec?.hostNetwork === true;
  return {
    uid: pod.metadata?.uid ?? `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? 'default',
    nodeName: pod.spec?.nodeName ?? '',
    podIp: pod.status?.podIP ?? '',
    serviceAccount: pod.spec?.serviceAccountName ?? 'default',
    labels: pod.metadata?.labels ?? {},
    // In-pod mode: only a pod istio-cni says it captured (a pod that started with no agent on its node
    // is reached in plaintext, as istiod does); node-address mode has no node agent to say so.
    isMeshed:
      pod.metadata?.labels?.[DATAPLANE_MODE_LABEL] === 'ambient' &&
      (options.tunnel === 'node' ||
        pod.metadata.annotations?.[AMBIENT_REDIRECTION_ANNOTATION] === AMBIENT_REDIRECTION_ENABLED),
    isReady: isReady(pod),
    isDeleting: Boolean(pod.metadata?.deletionTimestamp),
    isTerminal: phase === 'Succeeded' || phase === 'Failed',
    ...(isHostNetwork ? { isHostNetwork } : {}),
    ...(options.tunnel === 'node' && !isHostNetwork && isIPv4(hostIp)
      ? { tunnelAddress: `${hostIp}:${String(HBONE_PORT)}` }
      : {}),
  };
}

/**
 * istiod's view of one Service: its ClusterIP as the VIP and numeric target ports. Headless and
 * selector-less services are not load-balanced by the mesh here; a named targetPort is not resolved
 * (the manifests use numbers).
 */
export function serviceViewOf(service: V1Service): ServiceView | undefined {
  const vip = service.spec?.clusterIP ?? '';
  const selector = service.spec?.selector ?? {};
  if (!isIPv4(vip) || Object.keys(selector).length === 0) return undefined;
  return {
    namespace: service.metadata?.namespace ?? 'default',
    name: service.metadata?.name ?? '',
    vip,
    selector,
    ports: (service.spec?.ports ?? []).map((p) => ({
      port: p.port,
      targetPort: typeof p.targetPort === 'number' ? p.targetPort : p.port,
    })),
  };
}

/**
 * The control plane's ClusterSource on a real cluster: pods and services from Kubernetes watches
 * (client-node informers, all namespaces), as istiod's kube registry reads them, and Istio's
 * Gateways and VirtualServices where their CRDs are installed (none otherwise, said once). A change
 * to any of them is signalled as each watch event arrives; the control plane debounces.
 */
export function createKubeClusterSource(kc: KubeConfig, options: KubeSourceOptions): KubeClusterSource {
  const core = kc.makeApiClient(CoreV1Api);
  const pods = makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
  const services = makeInformer<V1Service>(kc, '/api/v1/services', () => core.listServiceForAllNamespaces());
  let routing: { gateways: RoutingInformer; virtualServices: RoutingInformer } | undefined;
  const listeners = new Set<() => void>();
  const errorListeners = new Set<(err: Error) => void>();
  const changed = (): void => {
    for (const listener of listeners) listener();
  };
  const watch = <T extends KubernetesObject>(informer: Informer<T>): void => {
    informer.on('add', changed);
    informer.on('update', changed);
    informer.on('delete', changed);
    informer.on('error', (err: unknown) => {
      const error = err instanceof Error ? err : new Error(`watch failed: ${JSON.stringify(err)}`);
      for (const listener of errorListeners) listener(error);
    });
  };
  watch(pods);
  watch(services);
  const startRouting = async (): Promise<void> => {
    if (!(await servesRoutingApi(kc))) {
      options.log?.info('routing API not served: no Gateway or VirtualService routes', {
        api: 'networking.istio.io/v1',
      });
      return;
    }
    routing = makeRoutingInformers(kc);
    watch(routing.gateways);
    watch(routing.virtualServices);
    await Promise.all([routing.gateways.start(), routing.virtualServices.start()]);
    options.log?.info('watching Gateways and VirtualServices', { api: 'networking.istio.io/v1' });
  };
  return {
    pods: () => pods.list().map((p) => podViewOf(p, options)),
    services: () => services.list().flatMap((s) => serviceViewOf(s) ?? []),
    routing: () => ({
      gateways: routing?.gateways.list().map(istioConfigViewOf) ?? [],
      virtualServices: routing?.virtualServices.list().map(istioConfigViewOf) ?? [],
    }),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    async start() {
      await Promise.all([pods.start(), services.start(), startRouting()]);
    },
    async stop() {
      await Promise.all([
        pods.stop(),
        services.stop(),
        ...(routing ? [routing.gateways.stop(), routing.virtualServices.stop()] : []),
      ]);
    },
  };
}
