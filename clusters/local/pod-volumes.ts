// The volumes the local kubelet implements, each a directory on this machine that stands in for the
// mount (containers are processes, so an environment value under a mountPath is rewritten to the
// directory, container-env.ts):
//   hostPath /var/run/ztunnel          the node's directory (the ZDS socket)
//   configMap istio-ca-root-cert       root-cert.pem: the mesh root, as istiod's namespace controller
//                                      writes that ConfigMap into every namespace
//   projected serviceAccountToken      a pod-bound token from the local API server (TokenRequest),
//                                      for its audience and expirationSeconds. Not refreshed: the
//                                      kubelet rotates at 80% of the lifetime, longer than any run
//   emptyDir                           an empty directory
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Volume } from '@kubernetes/client-node';
import { boundPodOf } from '../../mesh/pki/index.ts';
import type { TokenIssuer } from '../../mesh/pki/index.ts';
import type { PodRecord } from './cluster-state.ts';
import { makeDirectory } from '../../lib/index.ts';

export const ZTUNNEL_HOST_PATH = '/var/run/ztunnel';
export const ROOT_CERT_CONFIGMAP = 'istio-ca-root-cert';
/** Kubernetes refuses a projected token that lives shorter than 10 minutes. */
const MIN_TOKEN_SECONDS = 600;

export interface VolumeContext {
  /** The node's directory standing in for the hostPath /var/run/ztunnel. */
  nodeRunDir: string;
  /** The mesh root (istio-ca-root-cert's root-cert.pem). */
  rootCertPem: string;
  tokens: TokenIssuer;
}

/** Why the local kubelet cannot mount this volume, or undefined when it can. */
export function unsupportedVolume(v: V1Volume): string | undefined {
  const kinds = Object.keys(v).filter((k) => k !== 'name');
  if (kinds.length !== 1) return 'must have exactly one volume source';
  if (v.hostPath)
    return v.hostPath.path === ZTUNNEL_HOST_PATH ? undefined : `only the hostPath ${ZTUNNEL_HOST_PATH}`;
  if (v.configMap)
    return v.configMap.name === ROOT_CERT_CONFIGMAP ? undefined : `only the configMap ${ROOT_CERT_CONFIGMAP}`;
  if (v.emptyDir) return undefined;
  const sources = v.projected?.sources ?? [];
  if (sources.length === 1 && sources[0]?.serviceAccountToken) {
    const t = sources[0].serviceAccountToken;
    if (!t.path || t.path.includes('/')) return 'serviceAccountToken.path must be a plain file name';
    if ((t.expirationSeconds ?? 3600) < MIN_TOKEN_SECONDS)
      return `serviceAccountToken.expirationSeconds must be at least ${String(MIN_TOKEN_SECONDS)}`;
    return undefined;
  }
  return 'only hostPath, configMap istio-ca-root-cert, emptyDir and a projected serviceAccountToken';
}

/** Materialises the pod's volumes; returns each volume's directory by volume name. */
export async function mountPodVolumes(pod: PodRecord, context: VolumeContext): Promise<Map<string, string>> {
  const dirs = new Map<string, string>();
  for (const v of pod.spec.volumes ?? []) {
    if (v.hostPath) {
      dirs.set(v.name, context.nodeRunDir);
      continue;
    }
    const dir = join(context.nodeRunDir, 'pods', pod.uid, 'volumes', v.name);
    await makeDirectory(dir);
    dirs.set(v.name, dir);
    if (v.configMap) await writeFile(join(dir, 'root-cert.pem'), context.rootCertPem);
    const token = v.projected?.sources?.[0]?.serviceAccountToken;
    if (token) {
      const jwt = await context.tokens.issue(boundPodOf(pod), {
        audience: token.audience ?? 'https://kubernetes.default.svc',
        expirationSeconds: token.expirationSeconds ?? 3600,
      });
      await writeFile(join(dir, token.path), jwt, { mode: 0o600 });
    }
  }
  return dirs;
}
