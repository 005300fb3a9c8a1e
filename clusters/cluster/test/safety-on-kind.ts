// Issue 62's acceptance on a real cluster (CI's kind part, .ci/kind, against its kept kind cluster):
// as a ServiceAccount bound to exactly `npm run cluster -- rbac`'s roles, `cluster check` passes and
// E2 runs with --backend cluster; `cleanup --yes` deletes an expired run's namespace and leaves a
// live run's and a look-alike's; with one verb taken from the roles, `check` names it and a run exits
// 2 with nothing created; no kubeconfig with credentials is left in results/. Every object it makes
// is deleted at its end. Usage: node clusters/cluster/test/safety-on-kind.ts <admin kubeconfig>
// <results dir>
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import type { KubernetesObject, V1PolicyRule } from '@kubernetes/client-node';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../../lib/index.ts';
import { runnerRbac, RUNNER_ROLE } from '../rbac.ts';
import { expiryAt } from '../run-ownership.ts';

const SA_NAMESPACE = 'harness-ci-rbac';
const SA = 'runner';
const [adminPath = '', resultsDir = ''] = process.argv.slice(2);
if (!adminPath || !resultsDir) {
  process.stderr.write('usage: safety-on-kind.ts <admin kubeconfig> <results dir>\n');
  process.exit(2);
}
const admin = new KubeConfig();
admin.loadFromFile(adminPath);
const core = admin.makeApiClient(CoreV1Api);
const objects = KubernetesObjectApi.makeApiClient(admin);
const say = (line: string) => process.stdout.write(`safety: ${line}\n`);

const apply = (o: KubernetesObject) =>
  objects.patch(o, undefined, undefined, 'ztunnel-harness-ci', true, PatchStrategy.ServerSideApply);

/** A kubeconfig for the ServiceAccount: a one-hour token (TokenRequest), in a private folder. */
async function runnerKubeconfig(dir: string): Promise<string> {
  const token = await core.createNamespacedServiceAccountToken({
    name: SA,
    namespace: SA_NAMESPACE,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const cluster = admin.getCurrentCluster();
  assert.ok(cluster);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: SA, token: token.status?.token ?? '' }],
    contexts: [{ name: 'runner', cluster: cluster.name, user: SA }],
    currentContext: 'runner',
  });
  const path = join(dir, 'runner.kubeconfig');
  await writeFile(path, kc.exportConfig(), { mode: 0o600 });
  return path;
}

const npm = (args: string[]) =>
  execa('npm', ['run', '-s', ...args], { cwd: PROJECT_ROOT, reject: false, all: true, stdin: 'ignore' });

/** A short E2 with --backend cluster as the ServiceAccount, its run folders under `results`. */
const e2As = (kubeconfig: string, results: string) =>
  npm([
    'experiment',
    '--',
    '--backend',
    'cluster',
    '--kubeconfig',
    kubeconfig,
    '--scenario',
    'workload-rollout',
    '--duration',
    '20',
    '--results-dir',
    results,
  ]);

/** Waits until the API's authorizer says `allowed` for the ServiceAccount (RBAC's cache). */
async function untilReview(attrs: Record<string, string>, allowed: boolean): Promise<void> {
  const authz = admin.makeApiClient(AuthorizationV1Api);
  for (let i = 0; i < 60; i++) {
    const r = await authz.createSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: `system:serviceaccount:${SA_NAMESPACE}:${SA}`, resourceAttributes: attrs },
      },
    });
    if ((r.status?.allowed ?? false) === allowed) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the authorizer never said ${String(allowed)} for ${JSON.stringify(attrs)}`);
}

async function runNamespaces(): Promise<string[]> {
  const list = await core.listNamespace({ labelSelector: 'app.kubernetes.io/managed-by=ztunnel-harness' });
  return list.items.map((n) => n.metadata?.name ?? '');
}

const roles = runnerRbac({
  istioNamespace: 'istio-system',
  gatewayNamespace: 'istio-system',
  withE1: false,
  subject: { kind: 'ServiceAccount', namespace: SA_NAMESPACE, name: SA },
});
const dir = await mkdtemp(join(tmpdir(), 'ztunnel-harness-safety-'));
await chmod(dir, 0o700);
const LIVE = 'ztunnel-harness-20260101-000000-11fe';
const DEAD = 'ztunnel-harness-20260101-000000-dead';
const LOOKALIKE = 'team-lookalike';
try {
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SA_NAMESPACE } });
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: SA_NAMESPACE } });
  for (const o of roles) await apply(o);
  await untilReview({ verb: 'create', resource: 'namespaces' }, true);
  const runner = await runnerKubeconfig(dir);

  const check = await npm(['cluster', '--', 'check', '--kubeconfig', runner]);
  process.stdout.write(`${check.all}\n`);
  assert.equal(check.exitCode, 0, 'check passes with exactly the roles');
  say('check with the roles: exit 0');

  const e2 = await e2As(runner, join(resultsDir, 'ci-cluster'));
  process.stdout.write(e2.all.split('\n').slice(-25).join('\n') + '\n');
  assert.ok(
    e2.exitCode === 0 || e2.exitCode === 1,
    `E2 as the ServiceAccount ran (exit ${String(e2.exitCode)})`,
  );
  say(`E2 as the ServiceAccount: exit ${String(e2.exitCode)}`);
  assert.deepEqual(await runNamespaces(), [], "the run's namespace is gone");

  const ownerLabels = (name: string) => ({
    'app.kubernetes.io/managed-by': 'ztunnel-harness',
    'ztunnel-harness/run': name,
  });
  const now = Date.now();
  await apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: LIVE,
      labels: ownerLabels(LIVE),
      annotations: { 'ztunnel-harness/expires-at': expiryAt(now) },
    },
  });
  await apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: DEAD,
      labels: ownerLabels(DEAD),
      annotations: { 'ztunnel-harness/expires-at': expiryAt(now - 3_600_000) },
    },
  });
  await apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: LOOKALIKE, labels: ownerLabels(LOOKALIKE) },
  });
  const cleanup = await npm(['cluster', '--', 'cleanup', '--kubeconfig', runner, '--yes']);
  process.stdout.write(cleanup.all + '\n');
  assert.equal(cleanup.exitCode, 0);
  const left = await runNamespaces();
  assert.ok(
    left.includes(LIVE) && left.includes(LOOKALIKE),
    `a live run's and a look-alike survive: ${left.join(' ')}`,
  );
  const dead = await core.readNamespace({ name: DEAD }).catch(() => undefined);
  assert.ok(!dead || dead.status?.phase === 'Terminating', 'the expired run deleted');
  say(`cleanup --yes: ${DEAD} deleted; ${LIVE} (live) and ${LOOKALIKE} (not ours) kept`);

  // One verb taken away: create on pods/exec (fortio's files).
  const clusterRole = roles.find((o) => o.kind === 'ClusterRole') as KubernetesObject & {
    rules: V1PolicyRule[];
  };
  const fewer = structuredClone(clusterRole);
  for (const r of fewer.rules)
    if (r.resources?.includes('pods/exec')) r.verbs = r.verbs.filter((v) => v !== 'create');
  await objects.replace(fewer);
  await untilReview(
    { verb: 'create', resource: 'pods', subresource: 'exec', namespace: 'ztunnel-harness-x' },
    false,
  );
  const before = await runNamespaces();
  const refused = await npm(['cluster', '--', 'check', '--kubeconfig', runner]);
  process.stdout.write(refused.all + '\n');
  assert.equal(refused.exitCode, 2);
  assert.match(refused.all, /MISSING +may create,get pods\/exec in \S+: forbidden: create/);
  const run = await e2As(runner, join(dir, 'refused'));
  assert.equal(run.exitCode, 2, run.all.split('\n').slice(-10).join('\n'));
  assert.deepEqual(await runNamespaces(), before, 'nothing created by the refused run');
  say(`without create on pods/exec: check exit 2 naming it; the run exit 2, nothing created`);

  const found: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (
        /kubeconfig/.test(e.name) ||
        /^\s*(token|client-key-data):/m.test(await readFile(p, 'utf8').catch(() => ''))
      )
        found.push(p);
    }
  };
  await walk(resultsDir);
  assert.deepEqual(found, [], 'no kubeconfig or credentials in results/');
  say(`no kubeconfig or credentials under ${resultsDir}`);
} finally {
  const made = [LIVE, DEAD, LOOKALIKE, SA_NAMESPACE];
  for (const name of made) await core.deleteNamespace({ name }).catch(() => undefined);
  // Gone before CI's own cleanup check counts what is labelled (a terminating one still is).
  for (let i = 0; i < 240; i++) {
    const left = await core.listNamespace();
    if (!left.items.some((n) => made.includes(n.metadata?.name ?? ''))) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  for (const o of roles)
    if (o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')
      await objects.delete(o).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
say(`done; ${RUNNER_ROLE} and its binding deleted`);
