import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFortioPod, FORTIO_EXIT_MARKER } from '../../manifests/index.ts';
import { fortioExitOf } from './pod-file-api.ts';

test("fortio's exit code is read from the waiting container's stdout, only once said on a line of its own", () => {
  assert.equal(fortioExitOf(''), undefined);
  assert.equal(fortioExitOf('fortio-exit'), undefined);
  assert.equal(fortioExitOf(`${FORTIO_EXIT_MARKER} 0\n`), 0);
  assert.equal(fortioExitOf(`something\n${FORTIO_EXIT_MARKER} 143\n`), 143);
  assert.equal(fortioExitOf(`x ${FORTIO_EXIT_MARKER} 1`), undefined);
});

test('filesVia api: an emptyDir (no node folder), the container waits after fortio with its exit said', () => {
  const pod = buildFortioPod({
    name: 'fortio-1-1',
    args: ['load', 'http://10.96.0.9/get'],
    placement: { namespace: 'ns', imagePullPolicy: 'IfNotPresent', filesVia: 'api' },
  });
  assert.deepEqual(pod.spec?.volumes, [{ name: 'out', emptyDir: {} }]);
  const script = pod.spec.containers[0]?.command?.[2] ?? '';
  assert.match(script, /trap 'kill -TERM \$pid' TERM INT/);
  assert.match(script, new RegExp(`echo "${FORTIO_EXIT_MARKER} \\$code"\\nexec sleep \\d+$`));
  // kind's default: fortio is the container's process, its files on the node.
  const kind = buildFortioPod({ name: 'fortio-1-1', args: ['load'] });
  assert.equal(kind.spec?.volumes?.[0]?.hostPath?.path, '/var/lib/ztunnel-harness/fortio/fortio-1-1');
  assert.match(kind.spec.containers[0]?.command?.[2] ?? '', /^exec \/usr\/bin\/fortio/);
});
