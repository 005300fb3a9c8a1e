import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFortioPod, buildLoadNamespace, FORTIO_NODE_DIR, LOAD_NAMESPACE } from './fortio-pod.ts';
import { DATAPLANE_MODE_LABEL, IMAGES } from './images.ts';

const ARGS = ['load', '-c', '4', '-json', '/out/fortio.json', 'http://10.96.0.20/status/418'];

test('the load namespace carries no ambient label: its pods stay out of the mesh', () => {
  const ns = buildLoadNamespace();
  assert.equal(ns.metadata?.name, LOAD_NAMESPACE);
  assert.equal(ns.metadata.labels?.[DATAPLANE_MODE_LABEL], undefined);
});

test("the fortio pod: out of the mesh, our image never pulled, run once, fortio's arguments as given", () => {
  const pod = buildFortioPod({ name: 'fortio-1-1', args: ARGS });
  assert.equal(pod.metadata?.namespace, LOAD_NAMESPACE);
  assert.equal(pod.metadata.labels?.[DATAPLANE_MODE_LABEL], 'none');
  assert.equal(pod.spec?.restartPolicy, 'Never');
  const [container, more] = pod.spec.containers;
  assert.equal(more, undefined);
  assert.equal(container?.image, IMAGES.fortio);
  assert.equal(container.imagePullPolicy, 'Never');
  assert.deepEqual(container.args, ARGS);
  // sh -c 'exec fortio "$@" > file 2>&1' fortio <args>: fortio itself, its output kept whole in /out.
  const [sh, dashC, script, argv0] = container.command ?? [];
  assert.deepEqual([sh, dashC, argv0], ['sh', '-c', 'fortio']);
  assert.match(script ?? '', /^exec \/usr\/bin\/fortio "\$@" >\/out\/output\.log 2>&1$/);
});

test("the pod's files land on its node in a folder of its own, which outlives the pod", () => {
  const a = buildFortioPod({ name: 'fortio-a', args: ARGS });
  const b = buildFortioPod({ name: 'fortio-b', args: ARGS });
  const pathOf = (pod: typeof a) => pod.spec?.volumes?.[0]?.hostPath?.path;
  assert.equal(pathOf(a), `${FORTIO_NODE_DIR}/fortio-a`);
  assert.notEqual(pathOf(a), pathOf(b));
  assert.deepEqual(a.spec?.containers[0]?.volumeMounts, [{ name: 'out', mountPath: '/out' }]);
});
