import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHarnessError } from '../../../lib/index.ts';
import { createKindBackend } from '../kind-backend.ts';
import { FORTIO_POD_MAIN } from './generator-command.ts';
import type { FortioPodConfig } from './fortio-pod-run.ts';

const FORTIO = ['/repo/.tools/fortio-v1.66.0/fortio', 'load', '-c', '2', 'http://127.0.0.1:18123/'];

test("the row says where the load came from: kind's ingress_path for --load-from cluster and host", () => {
  const inCluster = createKindBackend({ projectRoot: '/repo', loadFrom: 'cluster' });
  const onHost = createKindBackend({ projectRoot: '/repo', loadFrom: 'host' });
  assert.equal(inCluster.describe()['ingress_path'], 'cluster-pod+clusterip');
  assert.equal(onHost.describe()['ingress_path'], 'docker-proxy+nodeport');
  assert.equal(
    createKindBackend({ projectRoot: '/repo' }).describe()['ingress_path'],
    'docker-proxy+nodeport',
  );
  assert.ok(!('generatorCommand' in onHost), 'on the host fortio runs as it is');
});

test("--load-from cluster: fortio's command line goes to the pod runner, each call a pod of its own", () => {
  const backend = createKindBackend({
    projectRoot: '/repo',
    loadFrom: 'cluster',
    ingressHostPort: 18123,
    kubeconfigPath: '/runs/r1/kubeconfig',
    toolsEnv: { DOCKER_HOST: 'unix:///run/x.sock' },
  });
  const first = backend.generatorCommand?.(FORTIO) ?? [];
  const second = backend.generatorCommand?.(FORTIO) ?? [];
  assert.deepEqual(first.slice(0, 2), [process.execPath, FORTIO_POD_MAIN]);
  assert.deepEqual(first.slice(3), FORTIO);
  const config = JSON.parse(first[2] ?? '') as FortioPodConfig;
  assert.equal(config.kubeconfig, '/runs/r1/kubeconfig');
  assert.equal(config.ingress, '127.0.0.1:18123');
  assert.equal(config.dockerEnv['DOCKER_HOST'], 'unix:///run/x.sock');
  assert.match(config.podName, /^fortio-[0-9]+-1$/);
  assert.notEqual(config.podName, (JSON.parse(second[2] ?? '') as FortioPodConfig).podName);
});

test('--load-from cluster refuses a generator other than fortio (the pod holds fortio only)', () => {
  const backend = createKindBackend({ projectRoot: '/repo', loadFrom: 'cluster' });
  assert.throws(
    () => backend.generatorCommand?.(['/usr/bin/k6', 'run', 'load.js']),
    (err: unknown) => isHarnessError(err) && /--generator fortio/.test(err.message),
  );
});
