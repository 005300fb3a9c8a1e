// A CA with its own token issuer, for processes started outside a cluster (tests and benches that
// spawn ztunnel by hand): what the local backend's control plane and kubelet do together, in one
// place. Each credential is the three files a pod gets (root cert, pod-bound token) and the env.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificateAuthority } from './ca.ts';
import type { CertificateAuthority } from './ca.ts';
import { startCaServer } from './ca-server.ts';
import type { AuthorizerPod } from './node-authorizer.ts';
import { boundPodOf, createTokenIssuer, ISTIO_CA_AUDIENCE } from './service-account-token.ts';
import type { TokenIssuer } from './service-account-token.ts';

export interface StandaloneCa {
  ca: CertificateAuthority;
  tokens: TokenIssuer;
  url: string;
  /** Writes the pod's token and the root into `dir`; the env a ztunnel or gateway process needs. */
  credentialsFor(pod: AuthorizerPod): Promise<CaEnv>;
  close(): Promise<void>;
}

export type CaEnv = { CA_ADDRESS: string; CA_ROOT_CA: string; AUTH_TOKEN: string };

/** The pod's token and the root as files in `dir` (what the kubelet mounts), and the env naming them. */
export async function writeCredentials(options: {
  dir: string;
  caUrl: string;
  rootPem: string;
  tokens: TokenIssuer;
  pod: AuthorizerPod;
}): Promise<CaEnv> {
  const { dir, pod } = options;
  const rootFile = join(dir, 'root-cert.pem');
  const tokenFile = join(dir, `${pod.namespace}_${pod.name}.token`);
  const token = await options.tokens.issue(boundPodOf(pod), {
    audience: ISTIO_CA_AUDIENCE,
    expirationSeconds: 3600,
  });
  await writeFile(rootFile, options.rootPem);
  await writeFile(tokenFile, token, { mode: 0o600 });
  return { CA_ADDRESS: options.caUrl, CA_ROOT_CA: rootFile, AUTH_TOKEN: tokenFile };
}

export async function startStandaloneCa(options: {
  dir: string;
  /** Every pod the node authorizer and TokenReview may look up (callers and impersonated). */
  pods: readonly AuthorizerPod[];
  host?: string;
  ca?: CertificateAuthority;
}): Promise<StandaloneCa> {
  const ca = options.ca ?? (await createCertificateAuthority());
  const tokens = await createTokenIssuer();
  const server = await startCaServer({
    ca,
    authenticate: (token) =>
      tokens.review(
        token,
        ISTIO_CA_AUDIENCE,
        (namespace, name) => options.pods.find((p) => p.namespace === namespace && p.name === name)?.uid,
      ),
    pods: () => options.pods,
    ...(options.host ? { host: options.host } : {}),
  });
  return {
    ca,
    tokens,
    url: server.url,
    credentialsFor: (pod) =>
      writeCredentials({ dir: options.dir, caUrl: server.url, rootPem: ca.rootPem, tokens, pod }),
    close: () => server.close(),
  };
}
