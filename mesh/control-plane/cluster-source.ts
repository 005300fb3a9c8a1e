/**
 * What the control plane reads from the cluster: pods and services, Istio's Gateways and
 * VirtualServices where the cluster has them, and a signal when any of them change. The local
 * backend implements it over its own state; on kind, Kubernetes watches via client-node. Change
 * notifications arrive after the watch fan-out latency of the source.
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

/**
 * A networking.istio.io/v1 object (Gateway, VirtualService) as the API server holds it: where it is,
 * when it was made, and its spec unchecked (the control plane checks what it reads:
 * mesh/xds/networking).
 */
export interface IstioConfigView {
  namespace: string;
  name: string;
  /** metadata.creationTimestamp (istiod orders configs by it). */
  creationTimestamp?: string;
  spec: unknown;
}

/** Istio's routing API objects: what istiod's config store holds for gateways. */
export interface RoutingView {
  gateways: IstioConfigView[];
  virtualServices: IstioConfigView[];
}

export interface ClusterSource {
  pods(): PodView[];
  services(): ServiceView[];
  /** Gateways and VirtualServices; absent (or empty lists): the cluster serves no routing API. */
  routing?(): RoutingView;
  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}
