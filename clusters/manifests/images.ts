/**
 * The images the manifests name. Ours (`ztunnel-harness/*`) are built from the repository's
 * Dockerfile on kind and loaded with `kind load docker-image`; the local backend maps each to a
 * TypeScript entrypoint. httpbin is go-httpbin's own image (what Istio's samples/httpbin runs), pulled
 * by kind; the local backend runs the same version built by `npm run tools`.
 */
export const IMAGES = {
  ztunnel: 'ztunnel-harness/ztunnel:dev',
  httpbin: 'mccutchen/go-httpbin:v2.26.0',
  /** A test instrument with go-httpbin's routes plus faults and test modes (apps/fault-server). */
  faultServer: 'ztunnel-harness/fault-server:dev',
  /**
   * The gateway's and the sidecar's istio-proxy (Istio's proxyv2): our pilot-agent and the real
   * Envoy 1.40, started as `proxy router` or `proxy sidecar`.
   */
  proxy: 'ztunnel-harness/proxyv2:dev',
  /** A meshed client pod calling httpbin (E5's ztunnel-to-ztunnel traffic). */
  client: 'ztunnel-harness/client:dev',
  /** The control plane (kind only: the local backend runs it in the harness process). */
  istiod: 'ztunnel-harness/istiod:dev',
  /** istio-cni's node agent on kind (mesh/node-agent/main.ts): enrols the node's ambient pods. */
  cni: 'ztunnel-harness/install-cni:dev',
  /** The load generator's pod on kind (--load-from cluster): fortio, outside the mesh. */
  fortio: 'ztunnel-harness/fortio:dev',
} as const;

/**
 * istio/ztunnel's own binary in dedicated mode, one per pod: not built here (the user brings it,
 * ZTUNNEL_BINARY) and run by the local backend only.
 */
export const ISTIO_ZTUNNEL_IMAGE = 'istio/ztunnel:byo';

/**
 * istio/ztunnel's own binary as the ztunnel DaemonSet on kind (--ztunnel-impl istio-shared): an image
 * of this repository, tagged with the binary's content hash, built at run time from ZTUNNEL_BINARY
 * (clusters/kind/provision/istio-ztunnel-image.ts) and loaded into the nodes; never pushed.
 */
export const ISTIO_ZTUNNEL_IMAGE_REPOSITORY = 'ztunnel-harness/istio-ztunnel';

/** Ambient enrolment label (Istio accepts it on namespaces and pods). */
export const DATAPLANE_MODE_LABEL = 'istio.io/dataplane-mode';
/** Sidecar injection label; here the manifest builder adds the istio-proxy container itself. */
export const SIDECAR_INJECT_LABEL = 'sidecar.istio.io/inject';
/** kubectl rollout restart's annotation (kubectl pkg/polymorphichelpers/objectrestarter.go). */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
/**
 * A pod annotation asking the local backend for a network namespace of the pod's own (its IP on the
 * node's bridge) instead of a loopback address: for programs that bind fixed wildcard ports.
 */
export const POD_NETWORK_ANNOTATION = 'ztunnel-harness/network';

/** Node label the manifests select on; the local backend's nodes carry it, the kind config sets it. */
export const NODE_LABEL = 'ztunnel-harness/node';

/** An image of `IMAGES` from a registry of the user's (`<registry>/<name>:<tag>`), or as it is. */
export function imageFrom(image: string, registry: string | undefined): string {
  if (!registry) return image;
  const last = image.split('/').pop() ?? image;
  return `${registry.replace(/\/+$/, '')}/${last}`;
}
