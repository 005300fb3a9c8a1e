// istiod's namespace controller (pilot/pkg/keycertbundle, security/pkg/k8s/namespace_controller.go)
// writes the mesh root into a ConfigMap `istio-ca-root-cert`, key root-cert.pem, that the chart mounts
// into ztunnel, gateways and sidecars. istiod writes it into every namespace; on kind ours writes it
// into the namespaces of the pods that ask the CA here (ROOT_CERT_NAMESPACES); the local backend's
// kubelet mounts the root directly (clusters/local/pod-volumes.ts).
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { describeError, isTransientNetworkError, isTransientStatus } from '../startup-retry.ts';

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

/** client-node's ApiException: the HTTP status as a numeric `code`, the Status object as `body`. */
interface ApiFailure {
  code: number;
  body?: { message?: string } | string;
}

const isApiFailure = (err: unknown): err is ApiFailure =>
  typeof (err as { code?: unknown } | undefined)?.code === 'number';

/** An API call worth repeating: 5xx or 429 from the API server, or the API server unreachable. */
export function isTransientApiError(err: unknown): boolean {
  return isApiFailure(err) ? isTransientStatus(err.code) : isTransientNetworkError(err);
}

/** A Status object's message; for a status client-node does not expect, the body is still text. */
function statusMessage(body: ApiFailure['body']): string {
  if (typeof body !== 'string') return body?.message ?? JSON.stringify(body);
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : body;
  } catch {
    return body; // not JSON (a proxy's HTML page): the text itself is the reason
  }
}

/** `API server answered 503: etcdserver: leader changed`, without the headers ApiException's message carries. */
export function describeApiError(err: unknown): string {
  return isApiFailure(err)
    ? `API server answered ${String(err.code)}: ${statusMessage(err.body)}`
    : describeError(err);
}
