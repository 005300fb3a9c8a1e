// Kubernetes service-account tokens bound to a pod, as the API server issues them for a projected
// `serviceAccountToken` volume (TokenRequest API: a JWT with the `kubernetes.io` claim naming the
// namespace, pod, service account and node) and as TokenReview checks them: signature, audience,
// expiry, and the bound pod still existing with the same uid (pkg/serviceaccount/claims.go).
// The local backend's API server signs with ES256; a real one usually uses RS256.
import { errors, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import type { CryptoKey as JoseKey, JWTPayload } from 'jose';

export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** istiod accepts tokens for this audience only (pkg/security: TokenAudiences). */
export const ISTIO_CA_AUDIENCE = 'istio-ca';

/** Whom a token names (the `kubernetes.io` claim): a service account, and the pod it is bound to. */
export interface BoundPod {
  namespace: string;
  serviceAccount: string;
  /** Absent for a token not bound to a pod (`kubectl create token`). */
  podName?: string;
  podUid?: string;
  nodeName?: string;
}

/** The caller a valid token stands for (istiod's security.KubernetesInfo); '' where not bound. */
export type TokenCaller = Required<BoundPod>;

export interface TokenIssuer {
  /** A token for the pod, as the kubelet writes it into the pod's projected volume. */
  issue(subject: BoundPod, options: { audience: string; expirationSeconds: number }): Promise<string>;
  /** TokenReview: the caller, or why the token is refused. `podUid` looks the bound pod up now. */
  review(
    token: string,
    audience: string,
    podUid: (namespace: string, name: string) => string | undefined,
  ): Promise<TokenCaller | string>;
}

/** The claim a token for this pod carries (a pod as the API state or a test names it). */
export function boundPodOf(pod: {
  namespace: string;
  name: string;
  uid: string;
  serviceAccount: string;
  nodeName: string;
}): BoundPod {
  return {
    namespace: pod.namespace,
    serviceAccount: pod.serviceAccount,
    podName: pod.name,
    podUid: pod.uid,
    nodeName: pod.nodeName,
  };
}

interface KubernetesClaim {
  namespace?: unknown;
  pod?: { name?: unknown; uid?: unknown };
  serviceaccount?: { name?: unknown };
  node?: { name?: unknown };
}

function callerOf(payload: JWTPayload): TokenCaller | string {
  const k = payload['kubernetes.io'] as KubernetesClaim | undefined;
  const fields = {
    namespace: k?.namespace,
    serviceAccount: k?.serviceaccount?.name,
    podName: k?.pod?.name ?? '',
    podUid: k?.pod?.uid ?? '',
    nodeName: k?.node?.name ?? '',
  };
  for (const [name, value] of Object.entries(fields))
    if (typeof value !== 'string' || ((name === 'namespace' || name === 'serviceAccount') && !value))
      return `token has no ${name} in its kubernetes.io claim`;
  if (payload.sub !== `system:serviceaccount:${String(fields.namespace)}:${String(fields.serviceAccount)}`)
    return 'token subject does not match its kubernetes.io claim';
  return fields as TokenCaller;
}

export async function createTokenIssuer(): Promise<TokenIssuer> {
  const { privateKey, publicKey }: { privateKey: JoseKey; publicKey: JoseKey } =
    await generateKeyPair('ES256');
  return {
    issue: (subject, { audience, expirationSeconds }) =>
      new SignJWT({
        'kubernetes.io': {
          namespace: subject.namespace,
          serviceaccount: { name: subject.serviceAccount },
          ...(subject.podName ? { pod: { name: subject.podName, uid: subject.podUid ?? '' } } : {}),
          ...(subject.nodeName ? { node: { name: subject.nodeName } } : {}),
        },
      })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(SERVICE_ACCOUNT_ISSUER)
        .setSubject(`system:serviceaccount:${subject.namespace}:${subject.serviceAccount}`)
        .setAudience(audience)
        .setIssuedAt()
        .setNotBefore('0s')
        .setExpirationTime(`${String(expirationSeconds)}s`)
        .sign(privateKey),
    async review(token, audience, podUid) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, publicKey, { issuer: SERVICE_ACCOUNT_ISSUER, audience }));
      } catch (err) {
        return err instanceof errors.JOSEError ? `token refused: ${err.code}` : 'token refused';
      }
      const caller = callerOf(payload);
      if (typeof caller === 'string' || !caller.podName) return caller;
      const uid = podUid(caller.namespace, caller.podName);
      if (uid === undefined) return `pod ${caller.namespace}/${caller.podName} not found`;
      if (uid !== caller.podUid)
        return `pod ${caller.namespace}/${caller.podName} uid does not match the token's`;
      return caller;
    },
  };
}
