// The in-cluster half of the mesh on kind, as far as it can be checked without Docker: the manifests
// against client-node's models, up() waiting for istiod (and tearing down when it never comes), and
// the ingress wait before load (real HTTP on loopback).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createSystemClock, ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { PROJECT_ROOT } from '../../../harness/paths.ts';
import {
  buildMeshManifests,
  GATEWAY_NODE_PORT,
  isDaemonSet,
  isService,
  ZTUNNEL_READY_FILE,
} from '../../manifests/index.ts';
import { awaitServing } from '../await-serving.ts';
import { createKindBackend } from '../kind-backend.ts';
import { buildKindControlPlane } from '../kind-manifests.ts';
import { createKindTools } from '../kind-tools.ts';
import { validateAgainstModels } from '../model-check.ts';
import { startApiServerDouble } from './api-server-double.ts';
import { createFakeKindAndDocker, kindKubeconfig } from './fake-kind-docker.ts';

/** An HTTP server answering the given statuses in turn (the last one from then on). */
async function statusServer(t: { after: (fn: () => void) => void }, statuses: number[]) {
  let n = 0;
  const server = createServer((_req, res) => {
    res.writeHead(statuses[Math.min(n++, statuses.length - 1)] ?? 500).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.close();
  });
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/get`, count: () => n };
}

describe('kind mesh', () => {
  it('node-address ztunnel, NodePort gateway and istiod pass the model check and say what they are', () => {
    const mesh = buildMeshManifests({
      ztunnel: { graceS: 30, inPod: false },
      httpbin: { replicas: 2, mesh: 'ambient' },
      gateway: { mode: 'hbone', nodePort: GATEWAY_NODE_PORT },
    });
    validateAgainstModels([...buildKindControlPlane(), ...mesh]);
    const ztunnel = mesh.find(isDaemonSet);
    const spec = ztunnel?.spec?.template.spec;
    assert.ok(spec);
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.dnsPolicy, 'ClusterFirstWithHostNet');
    assert.deepEqual(
      spec.volumes?.map((v) => v.name),
      ['istio-token', 'istiod-ca-cert'],
      "the CA's token and root only: no ZDS socket without the CNI node agent",
    );
    const container = spec.containers[0];
    assert.ok(container);
    assert.deepEqual(container.readinessProbe?.exec?.command, ['test', '-e', ZTUNNEL_READY_FILE]);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env['INPOD_ENABLED'], 'false');
    assert.equal('ZDS_ADDRESS' in env, false);
    const gatewayService = mesh.filter(isService).find((o) => o.metadata?.name === 'istio-ingressgateway');
    assert.deepEqual(
      { type: gatewayService?.spec?.type, nodePort: gatewayService?.spec?.ports?.[0]?.nodePort },
      { type: 'NodePort', nodePort: GATEWAY_NODE_PORT },
    );
  });

  it('waits for three 200s in a row from the ingress; fails at the deadline naming the last answer', async (t) => {
    const clock = createSystemClock();
    const flaky = await statusServer(t, [503, 200, 503, 200]);
    await awaitServing({ url: flaky.url, clock, deadlineMs: clock.now() + 10_000 });
    assert.equal(flaky.count(), 6, '503, 200, 503, then three 200s');
    const down = await statusServer(t, [503]);
    await assert.rejects(
      awaitServing({ url: down.url, clock, deadlineMs: clock.now() + 700 }),
      (err: unknown) => isHarnessError(err, ErrorCode.ComponentFailed) && /last: HTTP 503/.test(err.message),
    );
  });

  it('up() waits for istiod; when it never rolls out, up() fails naming it and deletes the cluster', async (t) => {
    const api = await startApiServerDouble(); // no controller: istiod never becomes ready
    t.after(() => api.close());
    const fakes = await createFakeKindAndDocker(kindKubeconfig('istiod-test', api.url));
    const tools = createKindTools({
      buildContext: PROJECT_ROOT,
      env: { PATH: fakes.path, FAKE_DIR: fakes.dir },
    });
    const backend = createKindBackend({
      name: 'istiod-test',
      projectRoot: PROJECT_ROOT,
      tools,
      controlPlaneTimeoutMs: 500,
    });
    t.after(() => backend.close());
    await assert.rejects(
      () => backend.up(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ComponentFailed) &&
        /Deployment istio-system\/istiod in kind cluster istiod-test to be rolled out/.test(err.message),
    );
    const deletes = (await fakes.calls()).filter((c) => c.args[0] === 'delete');
    assert.deepEqual(
      deletes.map((c) => c.args),
      [
        [
          'delete',
          'cluster',
          '--name',
          'istiod-test',
          '--kubeconfig',
          join(tmpdir(), 'istiod-test.kubeconfig'),
        ],
      ],
    );
  });
});
