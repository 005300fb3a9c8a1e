// istiod's namespace controller (pilot/pkg/keycertbundle, security/pkg/k8s/namespace_controller.go)
// writes the mesh root into a ConfigMap `istio-ca-root-cert`, key root-cert.pem, that the chart mounts
// into ztunnel, gateways and sidecars. istiod writes it into every namespace; on kind ours writes it
// into the namespaces of the pods that ask the CA here (ROOT_CERT_NAMESPACES); the local backend's
// kubelet mounts the root directly (clusters/local/pod-volumes.ts).
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';

export const ROOT_CERT_CONFIGMAP = 'istio-ca-root-cert';

/**
 * Where the manifests' proxies mount the ConfigMap (clusters/manifests/mesh-credentials.ts): ztunnel
 * and the gateway in istio-system, the injected sidecar (pilot-agent + Envoy) beside httpbin in
 * default. A pod whose ConfigMap volume names a missing ConfigMap never starts.
 */
export const ROOT_CERT_NAMESPACES = ['istio-system', 'default'] as const;

export function rootCertConfigMap(namespace: string, rootPem: string): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ROOT_CERT_CONFIGMAP, namespace, labels: { 'istio.io/config': 'true' } },
    data: { 'root-cert.pem': rootPem },
  };
}

/** Creates the ConfigMap, or replaces it when an earlier istiod (another root) left one. */
export async function publishRootCert(kc: KubeConfig, namespace: string, rootPem: string): Promise<void> {
  const api = kc.makeApiClient(CoreV1Api);
  const body = rootCertConfigMap(namespace, rootPem);
  try {
    await api.createNamespacedConfigMap({ namespace, body });
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
    await api.replaceNamespacedConfigMap({ name: ROOT_CERT_CONFIGMAP, namespace, body });
  }
}
