export {
  buildGateway,
  GATEWAY_DEFAULT_CONCURRENCY,
  GATEWAY_NODE_PORT,
  GATEWAY_PORT,
  GATEWAY_SERVICE_PORT,
} from './gateway.ts';
export type { GatewayManifestOptions } from './gateway.ts';
export { buildClient } from './client.ts';
export type { ClientManifestOptions } from './client.ts';
export { buildHttpbin, HTTPBIN_PORT, HTTPBIN_SERVICE_PORT, runsDedicatedZtunnel } from './httpbin.ts';
export type { HttpbinManifestOptions, SidecarOptions } from './httpbin.ts';
export { ENVOY_XDS_ADDRESS, ISTIO_PROXY_REQUESTS } from './istio-proxy.ts';
export {
  DATAPLANE_MODE_LABEL,
  imageFrom,
  IMAGES,
  ISTIO_ZTUNNEL_IMAGE,
  ISTIO_ZTUNNEL_IMAGE_REPOSITORY,
  NODE_LABEL,
  POD_NETWORK_ANNOTATION,
  RESTARTED_AT_ANNOTATION,
  SIDECAR_INJECT_LABEL,
} from './images.ts';
export { buildMeshManifests, isDaemonSet, isDeployment, isService, objectKey } from './mesh-manifests.ts';
export type { ClusterObject, MeshManifestOptions } from './mesh-manifests.ts';
export {
  buildRolloutRestartPatch,
  ROLLOUT_RESTART_FIELD_MANAGER,
  STRATEGIC_MERGE_PATCH,
} from './rollout-restart.ts';
export { buildZtunnelDaemonSet, ZTUNNEL_READY_FILE } from './ztunnel-daemonset.ts';
export type { ZtunnelManifestOptions } from './ztunnel-daemonset.ts';
export {
  buildFortioPod,
  KIND_LOAD_PLACEMENT,
  buildLoadNamespace,
  FORTIO_NODE_DIR,
  FORTIO_POD_OUT_DIR,
  FORTIO_POD_OUTPUT,
  FORTIO_EXIT_MARKER,
  LOAD_NAMESPACE,
  LOAD_POD_LABEL,
} from './fortio-pod.ts';
export type { FortioPodOptions, LoadPodPlacement } from './fortio-pod.ts';
export { buildClientPod, CLIENT_POD_GRACE_S } from './client-pod.ts';
export type { ClientPodOptions } from './client-pod.ts';
export { asIstioZtunnel, ISTIOD_ZTUNNEL_XDS, ISTIO_ZTUNNEL_LOG_LEVEL } from './istio-ztunnel-daemonset.ts';
