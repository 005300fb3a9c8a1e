// What a kind run keeps and tolerates (issue 33, predictions 4 and 6), against fake kind/docker and the
// API server double: container restarts before Ready are events, not failures, and a restart during
// the run fails it; a failed run's cluster logs (`kind export logs`), its troubled pods' logs (the
// instance before a restart too) and their status are saved into the run folder before the cluster
// is deleted, and logs() returns real lines.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ErrorCode, HarnessError, isHarnessError } from '../../../lib/index.ts';
import { buildHttpbin } from '../../manifests/index.ts';
import { POD_STATUS_FILE } from '../kind-evidence.ts';
import { podObject, putPod, startKindFixture, until, controlPlanePods } from './kind-fixtures.ts';

const NAME = 'harness-test';

describe('kind failures', () => {
  it('a restart before Ready is an event and is tolerated; one during the run fails it', async (t) => {
    const { api, backend } = await startKindFixture(t);
    const failures: HarnessError[] = [];
    backend.onFailure((err) => failures.push(err));
    await backend.up();
    // istiod's Deployment says 1 Ready and istio-cni's DaemonSet 2 (the double rolled them out): their
    // pods, as the kubelets report them.
    for (const p of controlPlanePods()) putPod(api, p);
    await backend.apply(buildHttpbin({ replicas: 1, mesh: 'off' }));
    const applied = api.get('deployments', 'default', 'httpbin');
    const generation = applied?.metadata?.generation ?? 1;
    const rolledOut = {
      observedGeneration: generation,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    };
    // Started before istiod served: exited once, restarted, then Ready.
    putPod(api, podObject('httpbin-abc-1', { ready: false, restartCount: 1 }));
    await until(() => backend.events().some((e) => e.kind === 'container-exited'), 'the restart seen');
    await assert.rejects(
      backend.waitForReady({ timeoutMs: 200 }),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ComponentFailed) &&
        /timed out .*; containers restarted meanwhile: default\/httpbin-abc-1 httpbin restarted \(restartCount 1; last exit 1 \(Error\) at 2026-11-21T10:00:05\.000Z\)$/.test(
          err.message,
        ),
    );
    api.put('deployments', { ...applied, status: rolledOut });
    putPod(api, podObject('httpbin-abc-1', { restartCount: 1 }));
    await backend.waitForReady({ timeoutMs: 5000 });
    assert.equal(failures.length, 0, 'a restart before Ready does not fail the run');
    const restart = backend.events().find((e) => e.kind === 'container-exited');
    assert.equal(restart?.object, 'default/httpbin-abc-1');
    assert.match(restart.detail ?? '', /^httpbin restarted \(restartCount 1; .*\), before Ready$/);

    putPod(api, podObject('httpbin-abc-1', { restartCount: 2 }));
    await until(() => failures.length > 0, 'the failure');
    assert.equal(failures.length, 1);
    assert.ok(isHarnessError(failures[0], ErrorCode.ComponentFailed));
    assert.match(
      failures[0].message,
      /^default\/httpbin-abc-1 httpbin restarted \(restartCount 2; last exit 1 .*\) during the run; its log before the restart is saved as \S+\/pods\/default_httpbin-abc-1_httpbin\.previous\.log/,
    );
  });

  it("on a failure, before deleting the cluster: kind export logs, troubled pods' logs (previous instance too) and status; logs() returns them", async (t) => {
    const { api, backend, runDir, told, commands } = await startKindFixture(t);
    await backend.up();
    putPod(api, podObject('httpbin-abc-1', { restartCount: 1 }));
    putPod(api, podObject('httpbin-abc-2', { ready: false }));
    putPod(api, podObject('httpbin-abc-3'));
    api.setLog(
      { namespace: 'default', pod: 'httpbin-abc-1', container: 'httpbin', previous: true },
      'boom\n',
    );
    api.setLog({ namespace: 'default', pod: 'httpbin-abc-1', container: 'httpbin' }, 'started again\n');
    api.setLog({ namespace: 'default', pod: 'httpbin-abc-2', container: 'httpbin' }, 'waiting\n');
    await until(() => backend.addresses().pods.length === 3, 'the pods seen by the watch');
    assert.match(
      backend.logs('default/httpbin-abc-1')[0] ?? '',
      /no logs saved for default\/httpbin-abc-1 yet/,
    );

    await backend.destroy(new Error('the gateway never became Ready'));
    const ran = await commands();
    const exported = ran.indexOf(`kind export logs ${join(runDir, 'kind-logs')} --name ${NAME}`);
    assert.ok(exported >= 0, ran.join('\n'));
    assert.ok(
      exported < ran.findIndex((c) => c.startsWith('kind delete cluster')),
      'saved before the cluster goes',
    );
    assert.deepEqual(await readdir(join(runDir, 'kind-logs')), ['kind-version.txt']);
    const pods = join(runDir, 'pods');
    // Every running container's log is followed from its start (log-followers.ts), a healthy
    // pod's too; the troubled pods' previous instances are read at the failure.
    assert.deepEqual((await readdir(pods)).sort(), [
      'default_httpbin-abc-1_httpbin.log',
      'default_httpbin-abc-1_httpbin.previous.log',
      'default_httpbin-abc-2_httpbin.log',
      'default_httpbin-abc-3_httpbin.log',
      POD_STATUS_FILE,
    ]);
    assert.equal(await readFile(join(pods, 'default_httpbin-abc-1_httpbin.previous.log'), 'utf8'), 'boom\n');
    const status = JSON.parse(await readFile(join(pods, POD_STATUS_FILE), 'utf8')) as { pod: string }[];
    assert.deepEqual(status.map((s) => s.pod).sort(), [
      'default/httpbin-abc-1',
      'default/httpbin-abc-2',
      'default/httpbin-abc-3',
    ]);
    assert.deepEqual(backend.logs('default/httpbin-abc-1'), ['boom', 'started again']);
    assert.equal(told.length, 1);
    assert.match(told[0] ?? '', /its logs were saved in \S+\/kind-logs \(kind export logs\)/);
    assert.doesNotMatch(told[0] ?? '', /not saved/);
  });

  it('a failed run with --keep-cluster keeps its cluster and says so with where its logs went', async (t) => {
    const { backend, told, commands } = await startKindFixture(t, { backend: { keepCluster: true } });
    await backend.up();
    await backend.destroy(new Error('the gateway never became Ready'));
    const ran = await commands();
    assert.ok(
      ran.some((c) => c.startsWith('kind export logs')),
      ran.join('\n'),
    );
    assert.ok(!ran.some((c) => c.startsWith('kind delete cluster')), 'kept');
    assert.match(
      told[0] ?? '',
      /^kind: the failed cluster is kept \(--keep-cluster: kind delete cluster removes it\); its logs were saved in/,
    );
  });

  it('an interrupted run keeps no evidence; a failed export is told and the cluster still goes', async (t) => {
    const interrupted = await startKindFixture(t);
    const controller = new AbortController();
    await interrupted.backend.up(controller.signal);
    controller.abort(new HarnessError(ErrorCode.Aborted, 'interrupted by SIGINT'));
    await interrupted.backend.destroy(new Error('interrupted by SIGINT'));
    const ran = await interrupted.commands();
    assert.equal(
      ran.some((c) => c.startsWith('kind export logs')),
      false,
    );
    assert.ok(ran.some((c) => c.startsWith('kind delete cluster')));

    const failing = await startKindFixture(t, { env: { FAKE_KIND_EXPORT_FAIL: '1' } });
    await failing.backend.up();
    await failing.backend.destroy(new Error('istiod exited'));
    assert.match(
      failing.told[0] ?? '',
      /not saved: kind export logs: kind export logs \S+ --name harness-test failed: ERROR: unknown cluster/,
    );
    assert.ok((await failing.commands()).some((c) => c.startsWith('kind delete cluster')));
  });

  it("close() saves every pod's logs before deleting them, and logs() returns their last lines", async (t) => {
    const { api, backend, runDir } = await startKindFixture(t);
    await backend.up();
    putPod(api, podObject('httpbin-abc-1'));
    api.setLog(
      { namespace: 'default', pod: 'httpbin-abc-1', container: 'httpbin' },
      'GET /get 200\nGET /get 200\n',
    );
    await until(() => backend.addresses().pods.length === 1, 'the pod seen by the watch');
    const closed = backend.close();
    await until(
      () => api.requests.some((r) => r.method === 'DELETE' && r.path.endsWith('/pods/httpbin-abc-1')),
      'the pod deleted',
    );
    const read = api.requests.findIndex((r) => r.path.endsWith('/pods/httpbin-abc-1/log'));
    const deleted = api.requests.findIndex(
      (r) => r.method === 'DELETE' && r.path.endsWith('/pods/httpbin-abc-1'),
    );
    assert.ok(read >= 0 && read < deleted, 'read before the pod was deleted');
    api.remove('pods', 'default', 'httpbin-abc-1');
    await closed;
    assert.equal(
      await readFile(join(runDir, 'pods', 'default_httpbin-abc-1_httpbin.log'), 'utf8'),
      'GET /get 200\nGET /get 200\n',
    );
    assert.deepEqual(backend.logs('default/httpbin-abc-1'), ['GET /get 200', 'GET /get 200']);
  });
});
