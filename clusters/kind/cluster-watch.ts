import { AppsV1Api, CoreV1Api, DiscoveryV1Api, makeInformer } from '@kubernetes/client-node';
import type {
  KubeConfig,
  KubernetesObject,
  V1DaemonSet,
  V1Deployment,
  V1EndpointSlice,
  V1Node,
  V1Pod,
  V1Service,
} from '@kubernetes/client-node';

interface Kinds {
  pods: V1Pod;
  endpointSlices: V1EndpointSlice;
  deployments: V1Deployment;
  daemonSets: V1DaemonSet;
  services: V1Service;
  nodes: V1Node;
}
export type WatchedKind = keyof Kinds;

export type WatchUpdate = {
  [K in WatchedKind]: { kind: K; before: Kinds[K] | undefined; after: Kinds[K] | undefined };
}[WatchedKind];

export interface ClusterWatch {
  list<K extends WatchedKind>(kind: K): Kinds[K][];
  /** Every add/update/delete with the previous version, as it arrives; returns unsubscribe. */
  onUpdate(listener: (update: WatchUpdate) => void): () => void;
  /** A watch failed for good (client-node's informer stops on error); returns unsubscribe. */
  onError(listener: (err: Error) => void): () => void;
  /** Lists everything, then watches (client-node informers: list, then watch from its resourceVersion). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * An informer per kind the harness needs, across all namespaces, keeping each object's previous
 * version so updates can be diffed (client-node's cache keeps only the latest).
 */
export function createClusterWatch(kc: KubeConfig): ClusterWatch {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const discovery = kc.makeApiClient(DiscoveryV1Api);
  const sources: { [K in WatchedKind]: [string, () => Promise<{ items: Kinds[K][] }>] } = {
    pods: ['/api/v1/pods', () => core.listPodForAllNamespaces()],
    endpointSlices: [
      '/apis/discovery.k8s.io/v1/endpointslices',
      () => discovery.listEndpointSliceForAllNamespaces(),
    ],
    deployments: ['/apis/apps/v1/deployments', () => apps.listDeploymentForAllNamespaces()],
    daemonSets: ['/apis/apps/v1/daemonsets', () => apps.listDaemonSetForAllNamespaces()],
    services: ['/api/v1/services', () => core.listServiceForAllNamespaces()],
    nodes: ['/api/v1/nodes', () => core.listNode()],
  };
  const latest = new Map<WatchedKind, Map<string, KubernetesObject>>();
  const updateListeners = new Set<(update: WatchUpdate) => void>();
  const errorListeners = new Set<(err: Error) => void>();
  const informers = (Object.keys(sources) as WatchedKind[]).map((kind) => {
    const [path, list] = sources[kind];
    const objects = new Map<string, KubernetesObject>();
    latest.set(kind, objects);
    const informer = makeInformer<KubernetesObject>(kc, path, list);
    const key = (o: KubernetesObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    const record = (k: string, after: KubernetesObject | undefined): void => {
      const before = objects.get(k);
      if (after) objects.set(k, after);
      else objects.delete(k);
      for (const listener of updateListeners) listener({ kind, before, after } as WatchUpdate);
    };
    for (const verb of ['add', 'update'] as const)
      informer.on(verb, (o) => {
        record(key(o), o);
      });
    informer.on('delete', (o) => {
      record(key(o), undefined);
    });
    informer.on('error', (err: unknown) => {
      const error = err instanceof Error ? err : new Error(`${path} watch failed: ${JSON.stringify(err)}`);
      for (const listener of errorListeners) listener(error);
    });
    return informer;
  });
  return {
    list: (kind) => [...(latest.get(kind)?.values() ?? [])] as never,
    onUpdate(listener) {
      updateListeners.add(listener);
      return () => updateListeners.delete(listener);
    },
    onError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    async start() {
      await Promise.all(informers.map((i) => i.start()));
    },
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
