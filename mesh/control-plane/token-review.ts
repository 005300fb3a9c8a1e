// istiod's authenticator on a real cluster (security/pkg/server/ca/authenticate/kubeauth/kube_jwt.go
// and pkg/kube/tokenreview): a TokenReview for audience istio-ca; the caller is the service account
// in the username and the bound pod in the extra fields the API server adds for pod-bound tokens.
import { AuthenticationV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1TokenReview } from '@kubernetes/client-node';
import { ISTIO_CA_AUDIENCE } from '../pki/index.ts';
import type { TokenCaller } from '../pki/index.ts';

/** The caller a reviewed token stands for, or why it is refused. */
export function callerOfReview(review: V1TokenReview): TokenCaller | string {
  const status = review.status;
  if (!status?.authenticated) return `token not authenticated: ${status?.error ?? 'no reason given'}`;
  // An audience-aware API server names the matching audience; an empty list means the API server's.
  if (!status.audiences?.includes(ISTIO_CA_AUDIENCE)) return `token audience is not ${ISTIO_CA_AUDIENCE}`;
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(status.user?.username ?? '');
  if (!m?.[1] || !m[2]) return `token user ${String(status.user?.username)} is not a service account`;
  const extra = (key: string): string =>
    status.user?.extra?.[`authentication.kubernetes.io/${key}`]?.[0] ?? '';
  return {
    namespace: m[1],
    serviceAccount: m[2],
    podName: extra('pod-name'),
    podUid: extra('pod-uid'),
    nodeName: extra('node-name'),
  };
}

export function createTokenReviewAuthenticator(
  kc: KubeConfig,
): (token: string) => Promise<TokenCaller | string> {
  const api = kc.makeApiClient(AuthenticationV1Api);
  return async (token) => {
    try {
      const review = await api.createTokenReview({
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, audiences: [ISTIO_CA_AUDIENCE] },
        },
      });
      return callerOfReview(review);
    } catch (err) {
      return `TokenReview failed: ${(err as Error).message}`;
    }
  };
}
