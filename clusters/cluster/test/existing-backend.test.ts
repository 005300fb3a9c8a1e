// The existing-cluster backend against the API server double standing in for a user's cluster with
// Istio ambient: what it creates (its namespace, and only in it), what it refuses before creating
// anything, how its faults map onto the cluster, and that close() leaves nothing it made.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { buildMeshManifests } from '../../manifests/index.ts';
import type { ApiServerDouble } from '../../kind/test/api-server-double.ts';
import { listOwnedNamespaces } from '../owned-namespaces.ts';
import { backendOn, NS } from './backend-on.ts';
import { ISTIO } from './user-cluster.ts';

const ZTUNNEL = { kind: 'DaemonSet', namespace: 'istio-system', name: 'ztunnel' } as const;
const HTTPBIN = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;

const writes = (api: ApiServerDouble) =>
  api.requests.filter(
    (r) =>
      ['POST', 'PATCH', 'PUT', 'DELETE'].includes(r.method) && !r.path.includes('selfsubjectaccessreviews'),
  );

test("up(): its namespace (ambient, owner-labelled), httpbin's ServiceAccount, a Gateway on the gateway's pods and a VirtualService to its httpbin", async (t) => {
  const { api, backend } = await backendOn(t);
  await backend.up();
  const ns = api.get('namespaces', '', NS);
  assert.equal((ns?.metadata?.['labels'] as Record<string, string>)['istio.io/dataplane-mode'], 'ambient');
  const gateway = api.get('gateways', NS, 'harness-gateway') as { spec: { selector: unknown } } | undefined;
  assert.deepEqual(gateway?.spec.selector, { app: 'istio-ingressgateway', istio: 'ingressgateway' });
  const vs = api.get('virtualservices', NS, 'httpbin') as { spec: { hosts: string[] } } | undefined;
  assert.match(vs?.spec.hosts[0] ?? '', /^httpbin-[0-9a-f]{32}\.ztunnel-harness\.test$/);
  // Created (a POST), never applied: a namespace is not taken over.
  assert.ok(writes(api).some((w) => w.method === 'POST' && w.path === '/api/v1/namespaces'));
  assert.ok(!writes(api).some((w) => w.path === `/api/v1/namespaces/${NS}` && w.method === 'PATCH'));
  // The lease: instantClock's wall time (2026-11-27T00:00Z) plus five minutes.
  const annotations = ns?.metadata?.['annotations'] as Record<string, string>;
  assert.equal(annotations['ztunnel-harness/expires-at'], '2026-11-27T00:05:00.000Z');
  // Every write went into its own namespace (or made it).
  for (const w of writes(api))
    assert.ok(
      w.path.includes(`/namespaces/${NS}`) ||
        (w.path === '/api/v1/namespaces' && (w.body as { metadata: { name: string } }).metadata.name === NS),
      `${w.method} ${w.path} stays in the run's namespace`,
    );
  const described = backend.describe();
  assert.equal(described['backend'], 'cluster');
  assert.equal(described['istio_version'], '1.28.1');
  assert.equal(described['ztunnel_image'], 'docker.io/istio/ztunnel:1.28.1');
  assert.equal(described['cluster_context'], 'kind-theirs');
});

test("Istio's pods are older than the run: their logs are followed from the run's start (sinceTime), not from theirs", async (t) => {
  const { api, backend } = await backendOn(t);
  api.put('pods', {
    metadata: {
      name: 'istio-ingressgateway-5c9f-x',
      namespace: ISTIO,
      uid: 'gw-1',
      labels: { app: 'istio-ingressgateway', istio: 'ingressgateway' },
    },
    spec: { nodeName: 'worker', containers: [{ name: 'istio-proxy' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'istio-proxy', state: { running: {} } }] },
  });
  await backend.up();
  const follows = () =>
    api.requests.filter((r) => r.path === `/api/v1/namespaces/${ISTIO}/pods/istio-ingressgateway-5c9f-x/log`);
  for (let i = 0; i < 50 && follows().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const [follow] = follows();
  assert.equal(follow?.query['follow'], 'true');
  // instantClock: the run starts at its wall offset, 2026-11-27T00:00:00Z.
  assert.equal(follow.query['sinceTime'], '2026-11-27T00:00:00.000Z');
  await backend.close();
});

test("apply(): the topology's httpbin into the run's namespace; the cluster's ztunnel and gateway are not touched", async (t) => {
  const { api, backend } = await backendOn(t);
  await backend.up();
  await backend.apply(
    buildMeshManifests({
      ztunnel: { graceS: 30 },
      httpbin: { replicas: 2, mesh: 'ambient' },
      gateway: { mode: 'hbone' },
    }),
  );
  assert.ok(api.get('deployments', NS, 'httpbin'));
  assert.ok(api.get('services', NS, 'httpbin'));
  assert.equal(api.get('deployments', 'default', 'httpbin'), undefined);
  for (const w of writes(api)) assert.ok(!w.path.includes(`/namespaces/${ISTIO}/`), `${w.path} left alone`);
});

test("close(): the run's namespace deleted and gone; nothing labelled by the harness is left", async (t) => {
  const { api, backend, kc } = await backendOn(t);
  const failures: Error[] = [];
  backend.onFailure((err) => failures.push(err));
  await backend.up();
  assert.equal((await listOwnedNamespaces(kc)).length, 1);
  await backend.close();
  await new Promise((resolve) => setImmediate(resolve));
  // The watches stopped at close end their requests: no failure of the run.
  assert.deepEqual(failures, []);
  assert.ok(writes(api).some((w) => w.method === 'DELETE' && w.path === `/api/v1/namespaces/${NS}`));
  assert.deepEqual(await listOwnedNamespaces(kc), []);
});

test('a cluster without ambient: refused up front (bad input, every missing line), nothing created', async (t) => {
  const { api, backend } = await backendOn(t, { ambient: false });
  await assert.rejects(backend.preflight(), (err: unknown) => {
    assert.ok(isHarnessError(err, ErrorCode.BadInput));
    assert.match(err.message, /MISSING +ambient: ztunnel: not found/);
    assert.match(err.message, /nothing was created/);
    return true;
  });
  await assert.rejects(backend.up(), (err: unknown) => isHarnessError(err, ErrorCode.BadInput));
  assert.deepEqual(writes(api), []);
});

test("a gateway that does not exist, a cluster without Istio's routing API: refused, nothing created", async (t) => {
  const missingGateway = await backendOn(t, {}, { gateway: { namespace: ISTIO, name: 'nope' } });
  await assert.rejects(missingGateway.backend.up(), /MISSING +ingress gateway: not found/);
  const noRoutes = await backendOn(t, { extraApiGroups: [] });
  await assert.rejects(noRoutes.backend.up(), /MISSING +a route to the run/);
  assert.deepEqual([...writes(missingGateway.api), ...writes(noRoutes.api)], []);
});

test("E1's ztunnel restart: refused without --allow-ztunnel-restart, and where RBAC forbids the patch", async (t) => {
  const notAsked = await backendOn(t, {}, { faultTarget: ZTUNNEL });
  await assert.rejects(notAsked.backend.preflight(), /pass --allow-ztunnel-restart/);
  const forbidden = await backendOn(
    t,
    {
      accessReview: (a) =>
        a['verb'] === 'patch' && a['resource'] === 'daemonsets'
          ? { allowed: false, reason: 'RBAC: no rule' }
          : { allowed: true },
    },
    { faultTarget: ZTUNNEL, allowZtunnelRestart: true },
  );
  await assert.rejects(
    forbidden.backend.preflight(),
    /no \(E1 only\) +may patch daemonsets ztunnel in istio-system: forbidden: patch/,
  );
  // E2's restart of its own httpbin needs neither.
  const e2 = await backendOn(t, {}, { faultTarget: HTTPBIN });
  await e2.backend.preflight();
  await e2.backend.up();
  await assert.rejects(e2.backend.rolloutRestart(ZTUNNEL), /--allow-ztunnel-restart/);
});

test("rolloutRestart(): the topology's httpbin is the run's; the patch is kubectl's, in the run's namespace", async (t) => {
  const { api, backend } = await backendOn(t, { rollOutOnApply: 'all' });
  await backend.up();
  await backend.apply(
    buildMeshManifests({ ztunnel: { graceS: 30 }, httpbin: { replicas: 1, mesh: 'ambient' } }),
  );
  await backend.rolloutRestart(HTTPBIN);
  assert.ok(
    writes(api).some(
      (w) => w.method === 'PATCH' && w.path === `/apis/apps/v1/namespaces/${NS}/deployments/httpbin`,
    ),
  );
});

test("E1 allowed: before anything runs, the output says the restartedAt annotation stays on the user's ztunnel", async (t) => {
  const said: string[] = [];
  const onProgress = (line: string) => said.push(line);
  const e1 = await backendOn(t, {}, { faultTarget: ZTUNNEL, allowZtunnelRestart: true, onProgress });
  await e1.backend.up();
  assert.ok(
    said.some((l) =>
      /restarts istio-system\/ztunnel .*kubectl\.kubernetes\.io\/restartedAt annotation stays/.test(l),
    ),
    said.join(''),
  );
  // E2 restarts only its own httpbin: nothing to say.
  said.length = 0;
  const e2 = await backendOn(t, {}, { faultTarget: HTTPBIN, onProgress });
  await e2.backend.up();
  assert.ok(!said.some((l) => l.includes('restartedAt')), said.join(''));
});

test("a namespace of the run's name exists already: the run stops (409), that namespace is neither changed nor deleted", async (t) => {
  const { api, backend } = await backendOn(t);
  api.put('namespaces', { metadata: { name: NS, labels: { team: 'theirs' } } });
  await assert.rejects(backend.up(), (err: unknown) => {
    assert.ok(isHarnessError(err, ErrorCode.BadInput));
    assert.match(err.message, new RegExp(`namespace ${NS} exists already and was not made by this run`));
    return true;
  });
  await backend.destroy();
  assert.deepEqual(api.get('namespaces', '', NS)?.metadata?.['labels'], { team: 'theirs' });
  assert.deepEqual(
    writes(api).map((w) => `${w.method} ${w.path}`),
    ['POST /api/v1/namespaces'],
    'one create asked, nothing else written',
  );
});

test("a gateway Service without a selector: refused (the run's Gateway would select every gateway), nothing created", async (t) => {
  const { api, backend } = await backendOn(t);
  const service = api.get('services', ISTIO, 'istio-ingressgateway') as { spec: Record<string, unknown> };
  api.put('services', { ...service, spec: { ...service.spec, selector: undefined } });
  await assert.rejects(backend.up(), (err: unknown) => {
    assert.ok(isHarnessError(err, ErrorCode.BadInput));
    assert.match(err.message, /MISSING +ingress gateway: .*selector \(none\)/);
    assert.match(err.message, /would select every gateway of the mesh/);
    return true;
  });
  assert.deepEqual(writes(api), []);
});

test("up() says the run's random Host, what it exposes and until when", async (t) => {
  const said: string[] = [];
  const { backend } = await backendOn(
    t,
    {},
    { onProgress: (line) => said.push(line), routeHost: 'httpbin-00ff.ztunnel-harness.test' },
  );
  await backend.up();
  assert.ok(
    said.some((l) =>
      /the run's route: Host httpbin-00ff\.ztunnel-harness\.test on istio-system\/istio-ingressgateway reaches the run's httpbin .* until the run's namespace is deleted/.test(
        l,
      ),
    ),
    said.join(''),
  );
});

test("the run folder keeps the run's pods' logs, Istio's pods' lines about the run, nothing of other tenants' or other pods'", async (t) => {
  const { api, backend, dir } = await backendOn(t);
  const running = (
    namespace: string,
    name: string,
    labels: Record<string, string>,
    container: string,
    podIP: string,
  ) => {
    api.put('pods', {
      metadata: { name, namespace, uid: name, labels },
      spec: { nodeName: 'worker', containers: [{ name: container }] },
      status: { phase: 'Running', podIP, containerStatuses: [{ name: container, state: { running: {} } }] },
    });
  };
  running(ISTIO, 'ztunnel-x', { app: 'ztunnel' }, 'istio-proxy', '10.244.1.2');
  running(ISTIO, 'kiali-k', { app: 'kiali' }, 'kiali', '10.244.0.11');
  const ours = `info\taccess\tconnection complete\tsrc.addr=10.244.1.7:4321 dst.namespace="${NS}"`;
  const theirs = 'info\taccess\tconnection complete\tsrc.addr=10.244.2.41:5555 dst.namespace="team-a"';
  const own = 'info\tztunnel::signal\treceived signal, starting shutdown';
  api.setLog(
    { namespace: ISTIO, pod: 'ztunnel-x', container: 'istio-proxy' },
    `${ours}\n${theirs}\n${own}\n`,
  );
  api.setLog({ namespace: ISTIO, pod: 'kiali-k', container: 'kiali' }, 'kiali: user bob logged in\n');
  running(NS, 'httpbin-a', { app: 'httpbin' }, 'httpbin', '10.244.2.5');
  api.setLog({ namespace: NS, pod: 'httpbin-a', container: 'httpbin' }, 'GET /get 200\n');
  await backend.up();
  await backend.close();
  const pods = join(dir, 'pods');
  assert.deepEqual(
    readdirSync(pods).sort(),
    [`${ISTIO}_ztunnel-x_istio-proxy.log`, `${NS}_httpbin-a_httpbin.log`].sort(),
  );
  assert.equal(readFileSync(join(pods, `${ISTIO}_ztunnel-x_istio-proxy.log`), 'utf8'), `${ours}\n${own}\n`);
  assert.equal(readFileSync(join(pods, `${NS}_httpbin-a_httpbin.log`), 'utf8'), 'GET /get 200\n');
});
