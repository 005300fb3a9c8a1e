/**
 * What the control plane reads from the cluster: pods and services, and a signal when they change.
 * The local backend implements it over its own state; on kind, Kubernetes watches via client-node.
 * Change notifications arrive after the watch fan-out latency of the source.
 */
export interface PodView {
  uid: string;
  name: string;
  namespace: string;
  nodeName: string;
  podIp: string;
  serviceAccount: string;
  labels: Record<string, string>;
  /** Ambient-captured (istio.io/dataplane-mode=ambient). */
  isMeshed: boolean;
  isReady: boolean;
  /** deletionTimestamp is set. */
  isDeleting: boolean;
  /** phase Succeeded or Failed. */
  isTerminal: boolean;
  /** HBONE address when not pod IP:15008 (kind: the node's ztunnel, `hostIP:15008`). */
  tunnelAddress?: string;
  /**
   * spec.hostNetwork (ztunnel itself on kind): the pod has its node's address, so it is no workload
   * of the mesh and discovery leaves it out; the CA's node authorizer and the xDS authorizer still
   * see it, as istiod's pod informer does. Absent: false.
   */
  isHostNetwork?: boolean;
}

export interface ServiceView {
  namespace: string;
  name: string;
  vip: string;
  selector: Record<string, string>;
  ports: { port: number; targetPort: number }[];
}

export interface ClusterSource {
  pods(): PodView[];
  services(): ServiceView[];
  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}
