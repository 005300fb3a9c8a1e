// The kind backend against fake kind/docker executables and an API server double: what it runs, what
// it sends, and how it waits, without a Docker engine.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadYaml } from '@kubernetes/client-node';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import type { ClusterBackend } from '../../backend.ts';
import {
  buildHttpbin,
  buildZtunnelDaemonSet,
  ENVOY_XDS_ADDRESS,
  IMAGES,
  NODE_LABEL,
} from '../../manifests/index.ts';
import { createKindBackend } from '../kind-backend.ts';
import { KIND_IMAGES } from '../kind-images.ts';
import { CONTROL_PLANE, controlPlanePods, putPod } from './kind-fixtures.ts';
import { createKindTools } from '../kind-tools.ts';
import { startApiServerDouble } from './api-server-double.ts';
import type { ApiServerDouble, RecordedRequest } from './api-server-double.ts';
import { createFakeKindAndDocker, kindKubeconfig } from './fake-kind-docker.ts';
import type { FakeTools } from './fake-kind-docker.ts';
import { fakeProvision } from './fake-provision.ts';

/** kind's kubeconfig in a private folder of the run's (kind-options.ts privateKubeconfigPath), as one token. */
const privateKubeconfig = (args: readonly string[]): string[] =>
  args.map((a) => (/\/ztunnel-harness-kube-[0-9a-f]{16}\/kubeconfig$/.test(a) ? '<private>/kubeconfig' : a));

type After = { after: (fn: () => Promise<void>) => void };
const NAME = 'harness-test';
const HTTPBIN = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;

async function setUp(t: After, env: Record<string, string> = {}, node?: Parameters<typeof fakeProvision>[2]) {
  // istiod's Deployment and istio-cni's DaemonSet roll out at once (up() waits for them); nothing
  // else does by itself.
  const api = await startApiServerDouble({ rollOutOnApply: [...CONTROL_PLANE] });
  t.after(() => api.close());
  const fakes = await createFakeKindAndDocker(kindKubeconfig(NAME, api.url));
  const tools = createKindTools({
    buildContext: PROJECT_ROOT,
    env: { PATH: fakes.path, FAKE_DIR: fakes.dir, ...env },
  });
  const backend = createKindBackend({
    name: NAME,
    projectRoot: PROJECT_ROOT,
    tools,
    provision: fakeProvision({ PATH: fakes.path, FAKE_DIR: fakes.dir, ...env }, undefined, node),
    ingressHostPort: 18181,
  });
  t.after(() => backend.close());
  return { api, fakes, backend };
}

async function upAndWatching(t: After): Promise<{
  api: ApiServerDouble;
  fakes: FakeTools;
  backend: ClusterBackend;
  /** PATCH requests after up() (which applies istiod and its prerequisites itself). */
  patchesSinceUp: () => RecordedRequest[];
}> {
  const s = await setUp(t);
  await s.backend.up();
  await s.api.watching(6);
  const mark = s.api.requests.length;
  return { ...s, patchesSinceUp: () => s.api.requests.slice(mark).filter((r) => r.method === 'PATCH') };
}

const rolledOut = (generation: number, replicas: number, extra: Record<string, number> = {}) => ({
  observedGeneration: generation,
  replicas,
  updatedReplicas: replicas,
  readyReplicas: replicas,
  availableReplicas: replicas,
  ...extra,
});

function pod(name: string, extra: { deleting?: boolean; ready?: boolean } = {}) {
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: { app: 'httpbin', 'pod-template-hash': 'abc' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'httpbin-abc', uid: 'rs', controller: true },
      ],
      ...(extra.deleting
        ? { deletionTimestamp: '2026-11-21T10:00:30Z', deletionGracePeriodSeconds: 30 }
        : {}),
    },
    spec: { nodeName: 'harness-test-worker', containers: [{ name: 'httpbin', image: IMAGES.httpbin }] },
    status: {
      phase: 'Running',
      podIP: '10.244.1.7',
      conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }],
      containerStatuses: [
        { name: 'httpbin', ready: true, restartCount: 0, image: '', imageID: '', state: { running: {} } },
      ],
    },
  };
}

describe('kind backend (fake kind/docker, API server double)', () => {
  it('creates the cluster: checks the tools, builds and loads every image, reads the kubeconfig, watches', async (t) => {
    const { api, fakes, backend } = await upAndWatching(t);
    const calls = await fakes.calls();
    const line = (c: { tool: string; args: string[] }): string => `${c.tool} ${c.args.join(' ')}`;
    // What can be refused before anything starts, then (after the images) the engine's facts.
    assert.deepEqual(calls.slice(0, 3).map(line), [
      'docker version --format {{.Server.Version}}',
      'kind version',
      'kind get clusters',
    ]);
    const afterBuilds = calls.slice(3 + KIND_IMAGES.length).map(line);
    assert.deepEqual(afterBuilds.slice(0, 4), [
      'docker version --format {{.Server.Version}}',
      'kind version',
      'docker info --format {{json .}}',
      'kind get clusters',
    ]);
    const builds = calls.filter((c) => c.tool === 'docker' && c.args[0] === 'build').map(line);
    assert.deepEqual(builds, [
      `docker build --target ztunnel --tag ${IMAGES.ztunnel}`,
      `docker build --target proxyv2 --tag ${IMAGES.proxy}`,
      `docker build --target client --tag ${IMAGES.client}`,
      `docker build --target istiod --tag ${IMAGES.istiod}`,
      `docker build --target install-cni --tag ${IMAGES.cni}`,
      `docker build --target httpbin --tag ${IMAGES.httpbin}`,
      `docker build --target fortio --tag ${IMAGES.fortio}`,
      `docker build --target fault-server --tag ${IMAGES.faultServer}`,
    ]);
    const create = calls.find((c) => c.args[0] === 'create');
    assert.deepEqual(privateKubeconfig(create?.args ?? []), [
      'create',
      'cluster',
      '--name',
      NAME,
      '--kubeconfig',
      '<private>/kubeconfig',
      '--config',
      '-',
      '--wait',
      '300s',
    ]);
    const config = loadYaml<{
      nodes: {
        role: string;
        labels?: Record<string, string>;
        extraPortMappings?: { hostPort: number; listenAddress: string }[];
      }[];
    }>(create?.stdin ?? '');
    assert.deepEqual(
      config.nodes.map((n) => n.role),
      ['control-plane', 'worker', 'worker'],
    );
    assert.deepEqual(
      config.nodes.map((n) => n.labels?.[NODE_LABEL]),
      [undefined, 'node-1', 'node-2'],
    );
    assert.deepEqual(
      config.nodes[0]?.extraPortMappings?.map((m) => [m.hostPort, m.listenAddress]),
      [[18181, '127.0.0.1']],
    );
    assert.equal(
      calls.map(line).find((l) => l.startsWith('kind load')),
      `kind load docker-image --name ${NAME} ${KIND_IMAGES.map((i) => i.image).join(' ')}`,
    );
    assert.ok(calls.map(line).includes(`kind get kubeconfig --name ${NAME}`));
    // create must come after every build (images exist to load) and before the load.
    const order = calls.map((c) => c.args[0]);
    assert.ok(
      order.lastIndexOf('build') < order.indexOf('create') && order.indexOf('create') < order.indexOf('load'),
    );
    const watched = api.requests
      .filter((r) => r.query['watch'] === 'true')
      .map((r) => r.path)
      .sort();
    assert.deepEqual(watched, [
      '/api/v1/nodes',
      '/api/v1/pods',
      '/api/v1/services',
      '/apis/apps/v1/daemonsets',
      '/apis/apps/v1/deployments',
      '/apis/discovery.k8s.io/v1/endpointslices',
    ]);
    // Before anything of the mesh: Istio's routing CRDs, then istiod, istio-cni and what they need,
    // applied by up(), which waited for the CRDs to be established and for both to roll out.
    assert.deepEqual(
      api.requests.filter((r) => r.method === 'PATCH').map((r) => r.path),
      [
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gateways.networking.istio.io',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/virtualservices.networking.istio.io',
        '/api/v1/namespaces/istio-system',
        '/api/v1/namespaces/istio-system/serviceaccounts/istiod',
        '/api/v1/namespaces/istio-system/serviceaccounts/ztunnel',
        '/api/v1/namespaces/istio-system/serviceaccounts/istio-ingressgateway',
        '/api/v1/namespaces/default/serviceaccounts/httpbin',
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/istiod-ztunnel-harness',
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/istiod-ztunnel-harness',
        '/apis/apps/v1/namespaces/istio-system/deployments/istiod',
        '/api/v1/namespaces/istio-system/services/istiod',
        '/api/v1/namespaces/istio-system/serviceaccounts/istio-cni',
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/istio-cni-ztunnel-harness',
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/istio-cni-ztunnel-harness',
        '/apis/apps/v1/namespaces/istio-system/daemonsets/istio-cni-node',
      ],
    );
    const istiod = api.get('deployments', 'istio-system', 'istiod') as
      { spec?: { template?: { spec?: { containers?: { image?: string; env?: unknown[] }[] } } } } | undefined;
    const container = istiod?.spec?.template?.spec?.containers?.[0];
    assert.ok(container);
    assert.equal(container.image, IMAGES.istiod);
    assert.deepEqual(container.env?.[0], { name: 'AMBIENT_TUNNEL', value: 'pod' });
    // What the proxies' pilot-agent dials (Envoy's mTLS ADS) is what the cluster says istiod serves.
    assert.equal(backend.addresses().controlPlane.envoyXds, ENVOY_XDS_ADDRESS);
    assert.equal(backend.describe()['kubernetes_version'], 'v1.35.0');
    assert.equal(backend.describe()['node_image'], '');
    assert.equal(backend.describe()['kind_version'], 'kind v0.33.0 go1.26.8 linux/amd64');
    assert.equal(backend.describe()['docker_server_version'], '28.2.2 (image store: overlay2)');
  });

  it('says which node image ran in a column of its own (schema 13), the server version alone beside it', async (t) => {
    const { backend } = await setUp(
      t,
      {},
      { nodeImage: 'ztunnel-harness/kind-node:1f2e3d', nodeImageSource: 'built here' },
    );
    await backend.up();
    assert.equal(backend.describe()['node_image'], 'ztunnel-harness/kind-node:1f2e3d (built here)');
    assert.equal(backend.describe()['kubernetes_version'], 'v1.35.0');
  });

  it('applies manifests by server-side apply, and refuses a field the model types do not know before sending anything', async (t) => {
    const { backend, patchesSinceUp } = await upAndWatching(t);
    const objects = [
      buildZtunnelDaemonSet({ graceS: 30 }),
      ...buildHttpbin({ replicas: 3, mesh: 'ambient' }),
    ];
    const [httpbinDeployment] = buildHttpbin({ replicas: 3, mesh: 'ambient' });
    const broken = structuredClone(httpbinDeployment);
    const container = broken.spec?.template.spec?.containers[0];
    assert.ok(container);
    (container as unknown as Record<string, unknown>)['livenessProb'] = { tcpSocket: { port: 80 } };
    await assert.rejects(
      () => backend.apply([objects[0] as (typeof objects)[0], broken]),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.BadInput) &&
        /spec\.template\.spec\.containers\[0\]\.livenessProb is not a field of V1Deployment/.test(
          err.message,
        ),
    );
    assert.equal(patchesSinceUp().length, 0, 'nothing applied');
    await backend.apply(objects);
    const patches = patchesSinceUp();
    assert.deepEqual(
      patches.map((r) => r.path),
      [
        '/apis/apps/v1/namespaces/istio-system/daemonsets/ztunnel',
        '/apis/apps/v1/namespaces/default/deployments/httpbin',
        '/api/v1/namespaces/default/services/httpbin',
      ],
    );
    for (const [i, r] of patches.entries()) {
      assert.equal(r.contentType, 'application/apply-patch+yaml');
      assert.equal(r.query['fieldManager'], 'ztunnel-harness');
      assert.equal(r.query['force'], 'true');
      assert.deepEqual(r.body, JSON.parse(JSON.stringify(objects[i])));
    }
  });

  it('restarts like kubectl: a strategic merge patch of restartedAt with field manager kubectl-rollout', async (t) => {
    const { api, backend, patchesSinceUp } = await upAndWatching(t);
    await assert.rejects(
      () => backend.rolloutRestart(HTTPBIN),
      (err: unknown) => isHarnessError(err, ErrorCode.BadInput) && /does not exist/.test(err.message),
    );
    api.put('deployments', {
      ...buildHttpbin({ replicas: 1, mesh: 'off' })[0],
      metadata: { name: 'httpbin', namespace: 'default', generation: 1 },
      status: rolledOut(1, 1),
    });
    api.put('daemonsets', {
      ...buildZtunnelDaemonSet({ graceS: 30 }),
      metadata: { name: 'ztunnel', namespace: 'istio-system', generation: 1 },
    });
    await eventually(() => backend.rolloutRestart(HTTPBIN));
    await backend.rolloutRestart({ kind: 'DaemonSet', namespace: 'istio-system', name: 'ztunnel' });
    const patches = patchesSinceUp();
    assert.deepEqual(
      patches.map((r) => r.path),
      [
        '/apis/apps/v1/namespaces/default/deployments/httpbin',
        '/apis/apps/v1/namespaces/istio-system/daemonsets/ztunnel',
      ],
    );
    for (const r of patches) {
      assert.equal(r.contentType, 'application/strategic-merge-patch+json');
      assert.equal(r.query['fieldManager'], 'kubectl-rollout');
      const body = r.body as { spec: { template: { metadata: { annotations: Record<string, string> } } } };
      assert.deepEqual(Object.keys(body), ['spec']);
      assert.match(
        body.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'] ?? '',
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
      );
    }
  });

  it("waits for a rollout by kubectl's predicates, then for the old pods to be gone, with watch events on the run's clock", async (t) => {
    const { api, backend } = await upAndWatching(t);
    const deployment = {
      ...buildHttpbin({ replicas: 2, mesh: 'off' })[0],
      metadata: { name: 'httpbin', namespace: 'default', generation: 1 },
      status: rolledOut(1, 2),
    };
    api.put('deployments', deployment);
    api.put('pods', pod('httpbin-abc-old'));
    await eventually(() => backend.rolloutRestart(HTTPBIN));
    const result = backend.waitForRollout(HTTPBIN, { timeoutMs: 10_000, untilOldPodsGone: true });
    let settled = false;
    void result.then(() => (settled = true));
    const stored = () => api.get('deployments', 'default', 'httpbin') as typeof deployment;
    const step = async (status: Record<string, number>): Promise<void> => {
      api.put('deployments', { ...stored(), status });
      await new Promise((r) => setTimeout(r, 30));
    };
    // The patch bumped the generation to 2; a status that has not observed it does not count.
    await step(rolledOut(1, 2));
    assert.equal(settled, false, 'observedGeneration behind');
    await step(rolledOut(2, 3, { updatedReplicas: 1, availableReplicas: 2 }));
    assert.equal(settled, false, 'not all updated');
    await step(rolledOut(2, 3, { updatedReplicas: 2 }));
    assert.equal(settled, false, 'an old replica still counted in status.replicas');
    api.put('pods', pod('httpbin-abc-old', { deleting: true, ready: false }));
    await step(rolledOut(2, 2));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(settled, false, 'rolled out, but an old pod is still terminating');
    api.remove('pods', 'default', 'httpbin-abc-old');
    const { startedAtMs, statusCompleteAtMs, oldPodsGoneAtMs } = await result;
    assert.ok(startedAtMs <= statusCompleteAtMs && statusCompleteAtMs <= (oldPodsGoneAtMs ?? -1));
    const kinds = backend
      .events()
      .filter((e) => e.object === 'default/httpbin-abc-old')
      .map((e) => e.kind);
    assert.deepEqual(kinds, [
      'pod-created',
      'container-started',
      'pod-ready',
      'pod-not-ready',
      'pod-deleting',
      'pod-removed',
    ]);
    const deleting = backend.events().find((e) => e.kind === 'pod-deleting');
    assert.equal(deleting?.detail, 'deletion at 2026-11-21T10:00:00.000Z, grace 30 s');
    assert.deepEqual(
      backend
        .events()
        .filter((e) => e.object === 'deployment/default/httpbin')
        .map((e) => e.kind),
      ['rollout-started', 'rollout-status-complete', 'rollout-old-pods-gone'],
    );
  });

  it("an EndpointSlice's change is the endpoint controller's event, a pod's the API server's", async (t) => {
    const { api, backend } = await upAndWatching(t);
    api.put('pods', pod('httpbin-abc-1'));
    const slice = (ready: boolean) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'httpbin-x', namespace: 'default' },
      addressType: 'IPv4',
      endpoints: [
        {
          addresses: ['10.244.1.5'],
          conditions: { ready, serving: ready, terminating: !ready },
          targetRef: { kind: 'Pod', namespace: 'default', name: 'httpbin-abc-1' },
        },
      ],
    });
    api.put('endpointslices', slice(true));
    api.put('endpointslices', slice(false));
    const sources = (kind: string) =>
      backend
        .events()
        .filter((e) => e.object === 'default/httpbin-abc-1' && e.kind === kind)
        .map((e) => e.source);
    // The watch delivers both slice versions; wait (bounded) until it has.
    for (let i = 0; i < 200 && sources('endpoint-updated').length < 2; i += 1)
      await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(sources('endpoint-updated'), ['controller', 'controller']);
    assert.deepEqual(sources('pod-created'), ['api-server']);
    // Gone, as the kubelet would make it on close (the double deletes nothing by itself).
    api.remove('pods', 'default', 'httpbin-abc-1');
  });

  it("waitForReady waits for the pods' watch to catch up with what a Deployment's status claims", async (t) => {
    const { api, backend } = await upAndWatching(t);
    const istiodPod = pod('istiod-abc-1');
    istiodPod.metadata = {
      ...istiodPod.metadata,
      namespace: 'istio-system',
      labels: { app: 'istiod', 'pod-template-hash': 'abc' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'istiod-abc', uid: 'i', controller: true },
      ],
    };
    api.put('pods', istiodPod);
    const cniPods = controlPlanePods().slice(1);
    for (const p of cniPods) putPod(api, p);
    await backend.apply(buildHttpbin({ replicas: 1, mesh: 'off' }));
    const applied = api.get('deployments', 'default', 'httpbin');
    // The controller's status arrives on the Deployment watch before the pod on the pods watch.
    api.put('deployments', { ...applied, status: rolledOut(applied?.metadata?.generation ?? 1, 1) });
    let ready = false;
    const waiting = backend.waitForReady({ timeoutMs: 5000 }).then(() => (ready = true));
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(ready, false, 'the status says 1 Ready, the pods watch has none yet');
    api.put('pods', pod('httpbin-abc-1'));
    await waiting;
    assert.equal(backend.addresses().pods.filter((p) => p.owner === 'deployment/httpbin').length, 1);
    // Gone, as the kubelet would make them on close (the double deletes nothing by itself).
    api.remove('pods', 'default', 'httpbin-abc-1');
    api.remove('pods', istiodPod.metadata.namespace, istiodPod.metadata.name);
    for (const p of cniPods) api.remove('pods', 'istio-system', p.metadata?.name ?? '');
  });

  it('tears the cluster down when a step after create fails, and on close exactly once', async (t) => {
    // Both ways of loading fail (kind load docker-image, then the image-archive fallback).
    const { fakes, backend } = await setUp(t, { FAKE_KIND_LOAD_FAIL: '1', FAKE_KIND_ARCHIVE_FAIL: '1' });
    await assert.rejects(
      () => backend.up(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ComponentFailed) &&
        /kind load docker-image --name harness-test .* failed: .*ctr: content digest sha256:0123: not found; the fallback .* failed too: kind load image-archive --name harness-test \S+ failed/s.test(
          err.message,
        ),
    );
    await backend.close();
    await backend.destroy();
    const deletes = (await fakes.calls()).filter((c) => c.args[0] === 'delete');
    assert.deepEqual(
      deletes.map((c) => privateKubeconfig(c.args)),
      [['delete', 'cluster', '--name', NAME, '--kubeconfig', '<private>/kubeconfig']],
    );

    const ok = await upAndWatching(t);
    await ok.backend.destroy(new Error('Ctrl-C'));
    await ok.backend.close();
    assert.equal((await ok.fakes.calls()).filter((c) => c.args[0] === 'delete').length, 1);
  });

  it('close() deletes our workloads and pods with a 2 s grace, waits for the pods, then the cluster; destroy() only the cluster', async (t) => {
    const { api, fakes, backend } = await upAndWatching(t);
    api.put('pods', pod('httpbin-abc-1'));
    await until(() => backend.addresses().pods.length === 1, 'the pod seen by the watch');
    const closed = backend.close();
    // The pod goes once its deletion has been asked for (the kubelet's part, played here).
    await until(
      () => api.requests.some((r) => r.method === 'DELETE' && r.path.endsWith('/pods/httpbin-abc-1')),
      'the pod deleted',
    );
    const clusterDeletedEarly = (await fakes.calls()).some((c) => c.args[0] === 'delete');
    api.remove('pods', 'default', 'httpbin-abc-1');
    await closed;
    assert.equal(clusterDeletedEarly, false, 'the cluster stays until the pods are gone');
    const deletes = api.requests.filter((r) => r.method === 'DELETE');
    assert.deepEqual(
      deletes.map((r) => r.path),
      [
        '/apis/apps/v1/namespaces/istio-system/daemonsets/istio-cni-node',
        '/apis/apps/v1/namespaces/istio-system/deployments/istiod',
        '/api/v1/namespaces/default/pods/httpbin-abc-1',
      ],
    );
    assert.equal(deletes[2]?.query['gracePeriodSeconds'], '2');
    assert.equal((await fakes.calls()).filter((c) => c.args[0] === 'delete').length, 1);

    const other = await upAndWatching(t);
    other.api.put('pods', pod('httpbin-abc-2'));
    await other.backend.destroy(new Error('Ctrl-C'));
    assert.equal(other.api.requests.filter((r) => r.method === 'DELETE').length, 0);
    assert.equal((await other.fakes.calls()).filter((c) => c.args[0] === 'delete').length, 1);
  });

  it('says what to do when kind is missing or the Docker engine is down (exit 2), creating nothing', async (t) => {
    const down = await setUp(t, { FAKE_DOCKER_DOWN: '1' });
    await assert.rejects(
      () => down.backend.up(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ToolMissing) &&
        err.exitCode === 2 &&
        /Docker is installed but its engine does not answer .*Cannot connect to the Docker daemon.*start the Docker engine, or run on the embedded cluster with --backend local/.test(
          err.message,
        ),
    );
    assert.equal((await down.fakes.calls()).filter((c) => c.tool === 'kind').length, 0);
    const fakes = await createFakeKindAndDocker('');
    const noKind = createKindTools({
      buildContext: PROJECT_ROOT,
      kind: 'kind-not-installed',
      env: { PATH: fakes.path, FAKE_DIR: fakes.dir },
    });
    await assert.rejects(
      () => noKind.checkInstalled(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ToolMissing) &&
        /kind-not-installed not found on PATH.*go install sigs\.k8s\.io\/kind@v0\.33\.0/.test(err.message),
    );
  });
});

/** Retries `fn` while the watch has not yet delivered what it needs (BadInput "does not exist"), up to 1 s. */
async function eventually(fn: () => Promise<void>): Promise<void> {
  for (let i = 0; ; i += 1) {
    try {
      await fn();
      return;
    } catch (err) {
      if (i > 100 || !isHarnessError(err, ErrorCode.BadInput)) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** Polls `check` every 10 ms for up to 5 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; !check(); i += 1) {
    if (i > 500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
