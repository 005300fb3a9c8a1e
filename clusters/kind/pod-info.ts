import type { V1Pod } from '@kubernetes/client-node';
import type { PodInfo } from '../backend.ts';
import { DATAPLANE_MODE_LABEL } from '../manifests/index.ts';

/** `deployment/httpbin` or `daemonset/ztunnel`, as the local backend names owners. */
export function ownerOf(pod: V1Pod): string {
  const ref = pod.metadata?.ownerReferences?.find((r) => r.controller);
  if (!ref) return '';
  if (ref.kind === 'ReplicaSet') {
    const hash = pod.metadata?.labels?.['pod-template-hash'];
    return `deployment/${hash ? ref.name.replace(new RegExp(`-${hash}$`), '') : ref.name}`;
  }
  return `${ref.kind.toLowerCase()}/${ref.name}`;
}

/** The pod's Ready condition is True (what `kubectl get pods` counts as ready). */
export const isPodReady = (pod: V1Pod | undefined): boolean =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export function toPodInfo(pod: V1Pod): PodInfo {
  const podIp = pod.status?.podIP ?? '';
  return {
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? 'default',
    node: pod.spec?.nodeName ?? '',
    podIp,
    // On kind the app listens on the pod IP itself; ztunnel is on the node (hostNetwork).
    appIp: podIp,
    isMeshed: pod.metadata?.labels?.[DATAPLANE_MODE_LABEL] === 'ambient',
    isReady: isPodReady(pod),
    isDeleting: Boolean(pod.metadata?.deletionTimestamp),
    phase: pod.status?.phase ?? 'Pending',
    owner: ownerOf(pod),
  };
}
