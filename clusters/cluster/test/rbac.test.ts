// The roles `npm run cluster -- rbac` prints are exactly what a run needs: the preflight passes with
// them, every request of a run's life against the API server double is one they allow, and with any
// single verb taken away the preflight names it and exits before anything is created.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { KubernetesObject, V1PolicyRule } from '@kubernetes/client-node';
import { ErrorCode, isHarnessError, PROJECT_ROOT } from '../../../lib/index.ts';
import { buildMeshManifests } from '../../manifests/index.ts';
import { printRbac } from '../print-rbac.ts';
import { runnerRbac } from '../rbac.ts';
import { backendOn, NS } from './backend-on.ts';
import { allows, attributesOf } from './rbac-authorizer.ts';
import type { Attributes } from './rbac-authorizer.ts';
import { ISTIO } from './user-cluster.ts';

const ZTUNNEL = { kind: 'DaemonSet', namespace: ISTIO, name: 'ztunnel' } as const;
const HTTPBIN = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;

const roles = (): KubernetesObject[] =>
  runnerRbac({ istioNamespace: ISTIO, gatewayNamespace: ISTIO, withE1: true });

/** The double's access reviews answered by RBAC over `objects`. */
const reviewWith = (objects: readonly KubernetesObject[]) => (r: Record<string, string>) => ({
  allowed: allows(objects, {
    verb: r['verb'] ?? '',
    group: r['group'] ?? '',
    resource: r['resource'] ?? '',
    subresource: r['subresource'] ?? '',
    namespace: r['namespace'] ?? '',
    name: r['name'] ?? '',
  }),
  reason: 'RBAC: no rule',
});

test("every request of an E1 run's life (check, watches, namespace, route, httpbin, restarts, logs, close) is one the roles allow", async (t) => {
  const granted = roles();
  const { api, backend } = await backendOn(
    t,
    { accessReview: reviewWith(granted), rollOutOnApply: 'all' },
    { faultTarget: ZTUNNEL, allowZtunnelRestart: true },
  );
  api.put('pods', {
    metadata: { name: 'ztunnel-x1', namespace: ISTIO, uid: 'z-1', labels: { app: 'ztunnel' } },
    spec: { nodeName: 'worker', containers: [{ name: 'istio-proxy' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'istio-proxy', state: { running: {} } }] },
  });
  await backend.up();
  await backend.apply(
    buildMeshManifests({ ztunnel: { graceS: 30 }, httpbin: { replicas: 2, mesh: 'ambient' } }),
  );
  await backend.rolloutRestart(HTTPBIN);
  await backend.scale(HTTPBIN, 3);
  await backend.rolloutRestart(ZTUNNEL);
  api.put('pods', {
    metadata: { name: 'httpbin-a', namespace: NS, uid: 'h-1' },
    spec: { nodeName: 'worker', containers: [{ name: 'httpbin' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'httpbin', state: { running: {} } }] },
  });
  await backend.deletePod('default', 'httpbin-a');
  await backend.close();
  const seen = new Set<string>();
  const denied: string[] = [];
  for (const r of api.requests) {
    const a = attributesOf(r.method, r.path, r.query);
    if (!a) continue;
    const what = `${a.verb} ${a.group}/${a.resource}${a.subresource ? `/${a.subresource}` : ''} ns=${a.namespace} name=${a.name}`;
    seen.add(
      `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.namespace === NS ? ' (run)' : a.namespace ? ` (${a.namespace})` : ''}`,
    );
    if (!allows(granted, a)) denied.push(what);
  }
  assert.deepEqual(denied, []);
  // The life covered what a run does (so the test cannot pass by doing nothing).
  for (const must of [
    'create namespaces',
    'delete namespaces',
    'get namespaces',
    'watch pods',
    'list nodes',
    'patch deployments (run)',
    'patch deployments/scale (run)',
    'patch daemonsets (istio-system)',
    'delete pods (run)',
    'get pods/log (istio-system)',
    'get daemonsets (istio-system)',
    'get services (istio-system)',
  ])
    assert.ok(seen.has(must), `${must} among ${[...seen].sort().join('; ')}`);
});

/** The roles with one verb of one rule taken away. */
function without(objects: KubernetesObject[], index: number, rule: number, verb: string): KubernetesObject[] {
  return objects.map((o, i) => {
    if (i !== index) return o;
    const copy = structuredClone(o) as KubernetesObject & { rules: V1PolicyRule[] };
    const r = copy.rules[rule];
    if (r) r.verbs = r.verbs.filter((v) => v !== verb);
    return copy;
  });
}

test('each verb of each role taken away in turn: the preflight names it, bad input, nothing created', async (t) => {
  const granted = roles();
  const cases: [number, number, string, Attributes['resource']][] = [];
  granted.forEach((o, i) => {
    ((o as { rules?: V1PolicyRule[] }).rules ?? []).forEach((r, j) => {
      for (const v of r.verbs) cases.push([i, j, v, r.resources?.[0] ?? '']);
    });
  });
  assert.ok(cases.length >= 25, String(cases.length));
  for (const [index, rule, verb, resource] of cases) {
    const { api, backend } = await backendOn(
      t,
      { accessReview: reviewWith(without(granted, index, rule, verb)) },
      { faultTarget: ZTUNNEL, allowZtunnelRestart: true },
    );
    await assert.rejects(backend.up(), `without ${verb} ${resource}: refused`);
    await assert.rejects(backend.preflight(), (err: unknown) => {
      assert.ok(isHarnessError(err, ErrorCode.BadInput), String(err));
      const [base = '', sub] = resource.split('/');
      assert.match(
        err.message,
        new RegExp(
          `(MISSING|no \\(E1 only\\)) +may [a-z,]+ ${base}${sub ? `/${sub}` : ''}\\b.*forbidden: [a-z,]*${verb}`,
        ),
        `${verb} ${resource}`,
      );
      return true;
    });
    assert.deepEqual(
      api.requests.filter((r) => r.method !== 'GET' && !r.path.endsWith('accessreviews')),
      [],
      `${verb} ${resource}: nothing created`,
    );
  }
});

test("the guide's docs/guide/rbac.yaml is `npm run cluster -- rbac`'s output (regenerate it when accessNeeds changes)", () => {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      out += chunk.toString();
      done();
    },
  });
  printRbac({ istioNamespace: ISTIO, gateway: `${ISTIO}/istio-ingressgateway`, e1: true }, sink);
  assert.equal(readFileSync(join(PROJECT_ROOT, 'docs/guide/rbac.yaml'), 'utf8'), out);
  assert.throws(
    () =>
      printRbac({ istioNamespace: ISTIO, gateway: 'istio-system/gw', serviceAccount: 'ci', e1: true }, sink),
    /Expected --service-account to be <namespace>\/<name>, got "ci"/,
  );
});
