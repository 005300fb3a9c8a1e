import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { createLogFollowers } from './log-followers.ts';
import type { PodLogRef } from './kube-api.ts';

function podWith(state: 'waiting' | 'running' | 'terminated'): V1Pod {
  return {
    metadata: { namespace: 'istio-system', name: 'ztunnel-abc' },
    spec: { containers: [{ name: 'istio-proxy' }] },
    status: {
      containerStatuses: [
        { name: 'istio-proxy', ready: true, restartCount: 0, image: '', imageID: '', state: { [state]: {} } },
      ],
    },
  };
}

test("each running container is followed once, from its start, into the pod's file; close() ends every follow", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'followers-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const started: PodLogRef[] = [];
  const sources: PassThrough[] = [];
  let aborted = 0;
  const followers = createLogFollowers({
    dir,
    follow: (log, out: Writable) => {
      started.push(log);
      const source = new PassThrough();
      source.pipe(out);
      sources.push(source);
      const stop = new AbortController();
      stop.signal.addEventListener('abort', () => {
        aborted++;
        source.end();
      });
      return Promise.resolve(stop);
    },
  });
  followers.onPod(podWith('waiting'));
  assert.equal(started.length, 0, 'nothing to follow before the container starts');
  followers.onPod(podWith('running'));
  followers.onPod(podWith('running'));
  assert.deepEqual(started, [{ namespace: 'istio-system', pod: 'ztunnel-abc', container: 'istio-proxy' }]);
  sources[0]?.write('line 1\n');
  sources[0]?.write('line 2 (the drain deadline, as the pod goes)\n');
  assert.equal(followers.followed('istio-system_ztunnel-abc_istio-proxy.log'), true);
  await followers.close();
  assert.equal(aborted, 1);
  assert.deepEqual(await readdir(dir), ['istio-system_ztunnel-abc_istio-proxy.log']);
  assert.equal(
    await readFile(join(dir, 'istio-system_ztunnel-abc_istio-proxy.log'), 'utf8'),
    'line 1\nline 2 (the drain deadline, as the pod goes)\n',
  );
  followers.onPod({ ...podWith('running'), metadata: { namespace: 'default', name: 'late' } });
  assert.equal(started.length, 1, 'nothing is followed after close()');
});

test('a follow that cannot start is told, and its file is closed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'followers-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const told: string[] = [];
  const followers = createLogFollowers({
    dir,
    follow: () => Promise.reject(new Error('pods "ztunnel-abc" not found')),
    onError: (file, err) => told.push(`${file}: ${(err as Error).message}`),
  });
  followers.onPod(podWith('terminated'));
  await followers.close();
  assert.deepEqual(told, ['istio-system_ztunnel-abc_istio-proxy.log: pods "ztunnel-abc" not found']);
});

test('stopping a follow, or its source failing, ends the file without an uncaught error (the follow listens to none)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'followers-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const told: string[] = [];
  const sources: PassThrough[] = [];
  const followers = createLogFollowers({
    dir,
    // As client-node's Log does: the response piped into `out`, aborting errors the response.
    follow: (_log, out) => {
      const source = new PassThrough();
      source.pipe(out);
      sources.push(source);
      const stop = new AbortController();
      stop.signal.addEventListener('abort', () => source.destroy(new Error('This operation was aborted')));
      return Promise.resolve(stop);
    },
    onError: (file, err) => told.push(`${file}: ${(err as Error).message}`),
  });
  followers.onPod(podWith('running'));
  followers.onPod({ ...podWith('running'), metadata: { namespace: 'default', name: 'httpbin-1' } });
  sources[0]?.write('before the API server went\n');
  sources[0]?.destroy(new Error('other side closed'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(told, ['istio-system_ztunnel-abc_istio-proxy.log: other side closed']);
  await followers.close();
  assert.equal(told.length, 1, 'the stop asked for is not an error');
  assert.equal(
    await readFile(join(dir, 'istio-system_ztunnel-abc_istio-proxy.log'), 'utf8'),
    'before the API server went\n',
  );
});
