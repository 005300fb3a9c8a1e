/**
 * A pod as its node's ztunnel knows it from the node agent (the CNI's ZDS AddWorkload). In the local
 * backend's in-pod model the app binds `appIp` (private) while ztunnel owns `podIp`: every connection
 * to the pod enters ztunnel first (docs/architecture.md, The local backend).
 */
export interface LocalWorkload {
  uid: string;
  name: string;
  namespace: string;
  serviceAccount: string;
  podIp: string;
  /** Where the app listens; on kind this is the pod IP itself. */
  appIp: string;
  /** Container ports ztunnel captures (plaintext inbound) and accepts as HBONE targets. */
  ports: number[];
  /**
   * The pod's own network namespace (a path to open), when it has one (the local backend's --netns):
   * ztunnel binds the pod's listeners inside it, as upstream does with the namespace ZDS hands it.
   * Without it the pod's address is on the shared loopback and ztunnel binds it from where it runs.
   */
  netns?: string;
  /**
   * istio-cni's in-pod rules are in the pod's namespace (the kind backend's node agent,
   * mesh/node-agent/kube-node-agent.ts): the app listens on the pod's own address, traffic to it is
   * redirected to ztunnel's :15006, and ztunnel reaches the app from inside the namespace.
   */
  inpodCapture?: boolean;
}

/** Where istio-cni's rules redirect a captured pod's inbound plaintext (INPOD_PORTS.inboundPlaintext). */
export const INBOUND_CAPTURE_PORT = 15006;

/** Ambient enrolment label (Istio accepts it on namespaces and pods; our manifests set it on pods). */
export const DATAPLANE_MODE_LABEL = 'istio.io/dataplane-mode';
/**
 * Set by istio-cni on a pod it has captured, removed when it lets go (istio/istio
 * pkg/config/constants AmbientRedirectionEnabled: "set by the CNI on pods when it actually has
 * successfully set up pod redirection, rather than by the user"); istiod sends a pod as HBONE only
 * with it (pilot/pkg/serviceregistry/ambient/workloads.go setTunnelProtocol).
 */
export const AMBIENT_REDIRECTION_ANNOTATION = 'ambient.istio.io/redirection';
export const AMBIENT_REDIRECTION_ENABLED = 'enabled';

export const HBONE_PORT = 15008;
export const OUTBOUND_CAPTURE_PORT = 15001;
export const READINESS_PORT = 15021;
export const METRICS_PORT = 15020;
