// The one place that decides what a run may change on a user's cluster (issue 62): every write of
// the run's API client goes through here. The run's own namespace (and the namespace object itself)
// may be written; outside it, only the consented restart of Istio's ztunnel DaemonSet. Anything
// else is refused before it is sent, as a bug of ours, never as the user's problem.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WorkloadRef } from '../backend.ts';
import type { KubeApi } from '../kind/kube-api.ts';

export interface WriteScope {
  /** The run's namespace: everything in it is the run's. */
  runNamespace: string;
  /** The DaemonSet a consented E1 may restart (undefined: none). */
  ztunnel: { namespace: string; name: string } | undefined;
  /**
   * istio-cni's DaemonSet, which a cni-* scenario restarts or deletes: only on a cluster the harness
   * made itself (kind with --control-plane istio); absent: refused like anything else.
   */
  istioCni?: { namespace: string; name: string } | undefined;
}

const isRef = (ref: WorkloadRef, daemonSet: { namespace: string; name: string } | undefined): boolean =>
  daemonSet !== undefined &&
  ref.kind === 'DaemonSet' &&
  ref.namespace === daemonSet.namespace &&
  ref.name === daemonSet.name;

function refuse(what: string, scope: WriteScope): never {
  throw new Error(
    `refused to ${what}: a run changes nothing outside its namespace ${scope.runNamespace} but the consented ztunnel restart (clusters/cluster/write-guard.ts)`,
  );
}

/** Whether the object is the run's: in its namespace, or the namespace itself. */
const isRuns = (o: KubernetesObject, scope: WriteScope): boolean =>
  o.metadata?.namespace === scope.runNamespace ||
  (o.kind === 'Namespace' && o.metadata?.name === scope.runNamespace);

/** `api` with its writes held to the scope; its reads (logs, versions) unchanged. */
export function guardWrites(api: KubeApi, scope: WriteScope): KubeApi {
  const inRun = (namespace: string) => namespace === scope.runNamespace;
  return {
    ...api,
    apply: (object) =>
      isRuns(object, scope)
        ? api.apply(object)
        : refuse(
            `apply ${object.kind ?? '?'} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`,
            scope,
          ),
    rolloutRestart: (ref: WorkloadRef, now) => {
      const consented = isRef(ref, scope.ztunnel) || isRef(ref, scope.istioCni);
      return inRun(ref.namespace) || consented
        ? api.rolloutRestart(ref, now)
        : refuse(`restart ${ref.kind} ${ref.namespace}/${ref.name}`, scope);
    },
    scale: (ref, replicas) =>
      inRun(ref.namespace)
        ? api.scale(ref, replicas)
        : refuse(`scale ${ref.kind} ${ref.namespace}/${ref.name}`, scope),
    deletePod: (namespace, name, grace) =>
      inRun(namespace)
        ? api.deletePod(namespace, name, grace)
        : refuse(`delete pod ${namespace}/${name}`, scope),
    // A node is the cluster's, never a run's: no run cordons one on a user's cluster.
    cordon: (node) => refuse(`cordon node ${node}`, scope),
    evictPod: (namespace, name) =>
      inRun(namespace) ? api.evictPod(namespace, name) : refuse(`evict pod ${namespace}/${name}`, scope),
    deleteWorkload: (ref) =>
      inRun(ref.namespace) || isRef(ref, scope.istioCni)
        ? api.deleteWorkload(ref)
        : refuse(`delete ${ref.kind} ${ref.namespace}/${ref.name}`, scope),
  };
}
