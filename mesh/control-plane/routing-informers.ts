import { CustomObjectsApi, makeInformer } from '@kubernetes/client-node';
import type {
  Informer,
  KubeConfig,
  KubernetesListObject,
  KubernetesObject,
  ObjectCache,
} from '@kubernetes/client-node';
import type { IstioConfigView } from './cluster-source.ts';

/** Istio's routing API as istiod reads it: networking.istio.io, version v1 (Istio >= 1.22). */
export const ROUTING_GROUP = 'networking.istio.io';
export const ROUTING_VERSION = 'v1';
const GROUP_VERSION = `${ROUTING_GROUP}/${ROUTING_VERSION}`;
const ROUTING_PLURALS = ['gateways', 'virtualservices'] as const;

/** A Gateway or VirtualService as the watch delivers it: metadata and an unchecked spec. */
export type IstioObjectResource = KubernetesObject & { spec?: unknown };

export type RoutingInformer = Informer<IstioObjectResource> & ObjectCache<IstioObjectResource>;

/**
 * Whether the API server serves both kinds: a list of one of each answers, where an unserved
 * resource is 404. istiod starts such an informer only once its CRD exists
 * (pkg/kube/kclient/crdwatcher.go, a watch on CustomResourceDefinitions); ours asks once, at start,
 * with the list right it has anyway, so CRDs installed later are seen after a restart. Any other
 * failure is thrown, as a failed pod list would be.
 */
export async function servesRoutingApi(kc: KubeConfig): Promise<boolean> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  try {
    await Promise.all(
      ROUTING_PLURALS.map((plural) =>
        custom.listClusterCustomObject({ group: ROUTING_GROUP, version: ROUTING_VERSION, plural, limit: 1 }),
      ),
    );
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 404) return false;
    throw err;
  }
}

/** Informers (all namespaces) on gateways and virtualservices, listed through CustomObjectsApi. */
export function makeRoutingInformers(kc: KubeConfig): {
  gateways: RoutingInformer;
  virtualServices: RoutingInformer;
} {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const informer = (plural: string): RoutingInformer =>
    makeInformer<IstioObjectResource>(
      kc,
      `/apis/${GROUP_VERSION}/${plural}`,
      // CustomObjectsApi answers `any`: the list as the API server sent it.
      async () =>
        (await custom.listClusterCustomObject({
          group: ROUTING_GROUP,
          version: ROUTING_VERSION,
          plural,
        })) as KubernetesListObject<IstioObjectResource>,
    );
  return { gateways: informer('gateways'), virtualServices: informer('virtualservices') };
}

/** The view the control plane reads of one object. */
export function istioConfigViewOf(object: IstioObjectResource): IstioConfigView {
  const created = object.metadata?.creationTimestamp;
  return {
    namespace: object.metadata?.namespace ?? 'default',
    name: object.metadata?.name ?? '',
    ...(created ? { creationTimestamp: new Date(created).toISOString() } : {}),
    spec: object.spec,
  };
}
