// Bringing a kind cluster up where the first real runs would trip (issue 33, predictions 5 and 7 and
// the review's preflight items), against fake kind/docker and the API server double: a leftover
// cluster, a cluster kind left half-made, SIGTERM during `kind create`, a busy host port, cgroup v1,
// and `kind load docker-image` failing on the containerd image store.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ErrorCode, HarnessError, isHarnessError } from '../../../lib/index.ts';
import { IMAGES } from '../../manifests/index.ts';
import { KIND_IMAGES } from '../kind-images.ts';
import { startKindFixture, until } from './kind-fixtures.ts';

const NAME = 'harness-test';

/** Whether process `pid` is still running (signal 0 only checks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

describe('kind bring-up', () => {
  it('refuses a leftover cluster of the same name (exit 2, naming `kind delete cluster`), building and creating nothing', async (t) => {
    const { backend, commands } = await startKindFixture(t, { env: { FAKE_KIND_CLUSTERS: `kind,${NAME}` } });
    const refused = (err: unknown): boolean =>
      isHarnessError(err, ErrorCode.BadInput) &&
      err.exitCode === 2 &&
      err.message.includes(`a kind cluster named "${NAME}" exists already`) &&
      err.message.includes(`\`kind delete cluster --name ${NAME}\``);
    await assert.rejects(() => backend.preflight(), refused);
    await assert.rejects(() => backend.up(), refused);
    const ran = await commands();
    assert.ok(ran.includes('kind get clusters'));
    assert.deepEqual(
      ran.filter((c) => /^(docker build|kind create|kind delete)/.test(c)),
      [],
      'the other cluster is left alone',
    );
  });

  it('deletes the cluster when `kind create cluster` fails: what it left half-made is ours', async (t) => {
    const { backend, commands } = await startKindFixture(t, { env: { FAKE_KIND_CREATE_FAIL: '1' } });
    await assert.rejects(() => backend.up(), /kind create cluster .* failed/);
    const ran = (await commands()).map((c) => c.split(' ').slice(0, 3).join(' '));
    assert.ok(ran.indexOf('kind delete cluster') > ran.indexOf('kind create cluster'), ran.join('\n'));
    assert.equal(ran.includes('kind export logs'), false, 'kind cleaned up its nodes: no logs to export');
  });

  it(
    'an abort (SIGTERM) kills `kind create` and `docker build`, then deletes the half-made cluster',
    { timeout: 30_000 },
    async (t) => {
      const interrupt = () => new HarnessError(ErrorCode.Aborted, 'interrupted by SIGTERM');
      const creating = await startKindFixture(t, { env: { FAKE_KIND_CREATE_HANG: '1' } });
      const controller = new AbortController();
      const up = creating.backend.up(controller.signal);
      await until(
        async () => (await creating.fakes.calls()).some((c) => c.args[0] === 'create'),
        'kind create cluster to start',
      );
      controller.abort(interrupt());
      await assert.rejects(up, (err: unknown) => isHarnessError(err, ErrorCode.Aborted));
      const calls = await creating.fakes.calls();
      const create = calls.find((c) => c.args[0] === 'create');
      assert.ok(create);
      await until(() => !isRunning(create.pid), 'the killed kind create to be gone');
      const ran = calls.map((c) => `${c.tool} ${c.args.slice(0, 2).join(' ')}`);
      assert.ok(ran.indexOf('kind delete cluster') > ran.indexOf('kind create cluster'));
      assert.equal(ran.includes('kind export logs'), false, 'an interruption keeps no evidence');

      const building = await startKindFixture(t, { env: { FAKE_DOCKER_BUILD_HANG: '1' } });
      const stop = new AbortController();
      const built = building.backend.up(stop.signal);
      await until(async () => (await building.fakes.calls()).some((c) => c.args[0] === 'build'), 'a build');
      stop.abort(interrupt());
      await assert.rejects(built, (err: unknown) => isHarnessError(err, ErrorCode.Aborted));
      const build = (await building.fakes.calls()).find((c) => c.args[0] === 'build');
      assert.ok(build);
      await until(() => !isRunning(build.pid), 'the killed docker build to be gone');
      assert.deepEqual(
        (await building.commands()).filter((c) => c.startsWith('kind create') || c.startsWith('kind delete')),
        [],
        'no cluster was started, so none is deleted',
      );
    },
  );

  it('a busy ingress host port is bad input naming it and --kind-ingress-port', async (t) => {
    const { backend, commands } = await startKindFixture(t, {
      env: { FAKE_KIND_PORT_TAKEN: '1' },
      backend: { ingressHostPort: 18499 },
    });
    await assert.rejects(
      () => backend.up(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.BadInput) &&
        /^127\.0\.0\.1:18499, where kind publishes the gateway's nodePort, is in use .*--kind-ingress-port .*port is already allocated/s.test(
          err.message,
        ),
    );
    assert.ok((await commands()).some((c) => c.startsWith('kind delete cluster')));
  });

  it('refuses a Docker engine on cgroup v1 (exit 2) under a given node image of Kubernetes 1.35+, before building anything', async (t) => {
    const { backend, commands } = await startKindFixture(t, {
      env: { FAKE_DOCKER_CGROUP_V1: '1' },
      backend: { nodeImage: 'kindest/node:v1.37.0' },
    });
    for (const step of [() => backend.preflight(), () => backend.up()])
      await assert.rejects(
        step,
        (err: unknown) =>
          isHarnessError(err, ErrorCode.ToolMissing) && /cgroup v1 .*failCgroupV1/.test(err.message),
      );
    assert.deepEqual(
      (await commands()).filter((c) => c.startsWith('docker build') || c.startsWith('kind create')),
      [],
    );
  });

  it('builds without provenance; when `kind load docker-image` fails (containerd image store), loads docker save archives of the engine platform; records the image store', async (t) => {
    const { backend, commands } = await startKindFixture(t, {
      env: { FAKE_DOCKER_CONTAINERD_STORE: '1', FAKE_KIND_LOAD_FAIL: '1' },
    });
    await backend.up();
    const ran = await commands();
    assert.ok(ran.includes(`docker build --target ztunnel --tag ${IMAGES.ztunnel}`));
    assert.equal(ran.filter((c) => /^docker build --target \S+ --tag /.test(c)).length, KIND_IMAGES.length);
    const fallback = ran
      .filter((c) => c.startsWith('docker save') || c.startsWith('kind load image-archive'))
      .map((c) => c.replace(/\S+\.tar\b/, '<archive>'));
    assert.deepEqual(
      fallback,
      KIND_IMAGES.flatMap((i) => [
        `docker save --platform linux/amd64 --output <archive> ${i.image}`,
        `kind load image-archive --name ${NAME} <archive>`,
      ]),
    );
    const archive = ran.find((c) => c.startsWith('docker save'))?.split(' ')[5] ?? '';
    assert.equal(existsSync(archive), false, 'the archives are removed once loaded');
    assert.equal(backend.describe()['docker_server_version'], '28.2.2 (image store: containerd (overlayfs))');
  });
});
