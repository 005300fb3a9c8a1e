import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildClientPod, CLIENT_POD_GRACE_S } from './client-pod.ts';
import { LOAD_NAMESPACE } from './fortio-pod.ts';
import { DATAPLANE_MODE_LABEL, IMAGES } from './images.ts';

test('a client pod: outside the mesh in the load namespace, our client image never pulled, run once, its program and environment', () => {
  const pod = buildClientPod({
    name: 'long-lived-1',
    command: ['node', 'apps/long-lived-client/main.ts'],
    env: { LONG_LIVED: '{}' },
  });
  assert.equal(pod.metadata?.namespace, LOAD_NAMESPACE);
  assert.equal(pod.metadata.labels?.[DATAPLANE_MODE_LABEL], 'none');
  assert.deepEqual(
    [pod.spec?.restartPolicy, pod.spec?.terminationGracePeriodSeconds],
    ['Never', CLIENT_POD_GRACE_S],
  );
  const [container, more] = pod.spec?.containers ?? [];
  assert.equal(more, undefined);
  assert.deepEqual(
    [container?.image, container?.imagePullPolicy, container?.command, container?.env],
    [
      IMAGES.client,
      'Never',
      ['node', 'apps/long-lived-client/main.ts'],
      [{ name: 'LONG_LIVED', value: '{}' }],
    ],
  );
});
