/**
 * The images the manifests name. On kind they are built from the repository's Dockerfile and loaded
 * with `kind load docker-image`; the local backend maps each to a TypeScript entrypoint.
 */
export const IMAGES = {
  ztunnel: 'ztunnel-harness/ztunnel:dev',
  httpbin: 'ztunnel-harness/httpbin:dev',
} as const;

/** Ambient enrolment label (Istio accepts it on namespaces and pods). */
export const DATAPLANE_MODE_LABEL = 'istio.io/dataplane-mode';
/** kubectl rollout restart's annotation (kubectl pkg/polymorphichelpers/objectrestarter.go). */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
