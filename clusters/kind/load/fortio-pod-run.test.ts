// The pod runner against the API server double: a fortio pod the kubelet cannot start is a load
// failure (a non-zero exit, which the harness turns into exit 3), found at once and cleaned up.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startApiServerDouble } from '../test/api-server-double.ts';
import { kindKubeconfig } from '../test/fake-kind-docker.ts';
import { IMAGES, LOAD_NAMESPACE } from '../../manifests/index.ts';
import { runFortioPod } from './fortio-pod-run.ts';

test('a fortio pod whose image the node does not have fails the load at once, and is deleted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fortio-pod-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const api = await startApiServerDouble();
  t.after(() => api.close());
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kindKubeconfig('harness-test', api.url));
  api.put('services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'istio-ingressgateway', namespace: 'istio-system' },
    spec: { clusterIP: '10.96.3.4' },
  });
  // The kubelet's answer for an image that is never pulled and not on the node.
  api.onChange(() => {
    const pod = api.get('pods', LOAD_NAMESPACE, 'fortio-t-1');
    if (!pod || pod['status']) return;
    api.put('pods', {
      ...pod,
      status: {
        phase: 'Pending',
        containerStatuses: [{ name: 'fortio', state: { waiting: { reason: 'ErrImageNeverPull' } } }],
      },
    });
  });
  const started = Date.now();
  const code = await runFortioPod(
    { kubeconfig, dockerEnv: {}, ingress: '127.0.0.1:18080', podName: 'fortio-t-1' },
    ['/x/fortio', 'load', '-json', join(dir, 'fortio.json'), 'http://127.0.0.1:18080/status/418'],
  );
  assert.equal(code, 1);
  assert.ok(Date.now() - started < 10_000, 'not after the 120 s start timeout');
  const applied = api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/pods/fortio-t-1'));
  const body = applied?.body as { spec: { containers: { image: string; args: string[] }[] } } | undefined;
  assert.equal(body?.spec.containers[0]?.image, IMAGES.fortio);
  assert.deepEqual(body.spec.containers[0].args, [
    'load',
    '-json',
    '/out/fortio.json',
    'http://10.96.3.4/status/418',
  ]);
  assert.ok(
    api.requests.some(
      (r) => r.method === 'DELETE' && r.path === `/api/v1/namespaces/${LOAD_NAMESPACE}/pods/fortio-t-1`,
    ),
    'the pod deleted',
  );
});
