import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { V1TokenReviewStatus } from '@kubernetes/client-node';
import { callerOfReview } from './token-review.ts';

const review = (status: V1TokenReviewStatus) => ({ spec: { token: 't' }, status });
/** The refusal's text (a refusal is a string; a caller is an object). */
const refusal = (result: unknown) => (typeof result === 'string' ? result : JSON.stringify(result));

it('a TokenReview names the service account and the bound pod, or why it is refused', () => {
  assert.deepEqual(
    callerOfReview(
      review({
        authenticated: true,
        audiences: ['istio-ca'],
        user: {
          username: 'system:serviceaccount:istio-system:ztunnel',
          extra: {
            'authentication.kubernetes.io/pod-name': ['ztunnel-abc'],
            'authentication.kubernetes.io/pod-uid': ['u-1'],
            'authentication.kubernetes.io/node-name': ['node-1'],
          },
        },
      }),
    ),
    {
      namespace: 'istio-system',
      serviceAccount: 'ztunnel',
      podName: 'ztunnel-abc',
      podUid: 'u-1',
      nodeName: 'node-1',
    },
  );
  assert.match(
    refusal(callerOfReview(review({ authenticated: false, error: 'expired' }))),
    /not authenticated: expired/,
  );
  assert.match(
    refusal(
      callerOfReview(
        review({ authenticated: true, audiences: [], user: { username: 'system:serviceaccount:a:b' } }),
      ),
    ),
    /audience is not istio-ca/,
  );
  assert.match(
    refusal(
      callerOfReview(
        review({ authenticated: true, audiences: ['istio-ca'], user: { username: 'kubernetes-admin' } }),
      ),
    ),
    /not a service account/,
  );
});
