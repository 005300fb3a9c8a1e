// `npm run cluster -- check` against the API server double standing in for a user's cluster with
// Istio ambient: what it reads, what it refuses and why, and that it writes nothing.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import { startUserCluster } from './test/user-cluster.ts';
import { checkExistingCluster } from './check-cluster.ts';
import type { CheckFlags } from './check-cluster.ts';

const ISTIO = 'istio-system';

async function check(
  flags: Partial<CheckFlags> & { kubeconfig: string },
): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      out += chunk.toString();
      done();
    },
  });
  const code = await checkExistingCluster(
    { istioNamespace: ISTIO, gateway: `${ISTIO}/istio-ingressgateway`, allowZtunnelRestart: false, ...flags },
    sink,
  );
  return { code, out };
}

test('a cluster with Istio ambient and its gateway: every check ok, versions from the images, exit 0, nothing written', async (t) => {
  const { api, kubeconfig } = await startUserCluster(t);
  const { code, out } = await check({ kubeconfig, context: 'kind-theirs', allowZtunnelRestart: true });
  assert.equal(code, 0, out);
  assert.match(out, /Kubernetes: v1\.35\.0 at http:\/\/127\.0\.0\.1:\d+ \(context kind-theirs\)/);
  assert.match(
    out,
    /Istio's control plane: Deployment istio-system\/istiod: docker\.io\/istio\/pilot:1\.28\.1 \(version 1\.28\.1\), 1\/1 ready/,
  );
  assert.match(out, /ambient: ztunnel: DaemonSet istio-system\/ztunnel: .* \(version 1\.28\.1\), 3\/3 ready/);
  assert.match(
    out,
    /ingress gateway: Service istio-system\/istio-ingressgateway 10\.96\.7\.7 ports 15021,80,443; 1 ready endpoints/,
  );
  assert.match(out, /a route to the run: served: networking\.istio\.io/);
  assert.match(out, /has what the experiments need, E1 included/);
  // Read-only: every request a GET, but the access reviews (which create nothing).
  const writes = api.requests.filter(
    (r) => r.method !== 'GET' && !r.path.endsWith('/selfsubjectaccessreviews'),
  );
  assert.deepEqual(writes, []);
  const reviews = api.requests.filter((r) => r.path.endsWith('/selfsubjectaccessreviews'));
  assert.ok(reviews.length >= 8, String(reviews.length));
});

test('a cluster without ambient, without the gateway and where the ztunnel restart is forbidden: each said with what to do, exit 2', async (t) => {
  const { kubeconfig } = await startUserCluster(t, {
    ambient: false,
    gateway: false,
    extraApiGroups: [],
    accessReview: (a) =>
      a['verb'] === 'patch' && a['resource'] === 'daemonsets'
        ? { allowed: false, reason: 'RBAC: no rule' }
        : { allowed: true },
  });
  const { code, out } = await check({ kubeconfig });
  assert.equal(code, 2);
  assert.match(out, /MISSING +ambient: ztunnel: not found\n +-> install Istio's ambient profile/);
  assert.match(out, /MISSING +ambient: istio-cni: not found/);
  assert.match(
    out,
    /MISSING +ingress gateway: not found\n +-> name the gateway Service to use with --gateway/,
  );
  assert.match(
    out,
    /MISSING +a route to the run: neither networking\.istio\.io \(VirtualService\) nor gateway\.networking\.k8s\.io/,
  );
  assert.match(
    out,
    /no \(E1 only\) +may patch daemonsets ztunnel in istio-system: forbidden: patch \(RBAC: no rule\)/,
  );
  assert.match(out, /missing what is marked above; nothing was changed/);
});

test('with only the ztunnel restart forbidden: ready without E1, not ready with --allow-ztunnel-restart', async (t) => {
  const { kubeconfig } = await startUserCluster(t, {
    accessReview: (a) => ({ allowed: !(a['verb'] === 'patch' && a['resource'] === 'daemonsets') }),
  });
  assert.equal((await check({ kubeconfig })).code, 0);
  assert.equal((await check({ kubeconfig, allowZtunnelRestart: true })).code, 2);
});

test('bad input before anything is contacted: a missing kubeconfig, an unknown context, a gateway not namespace/service', async (t) => {
  const { api, kubeconfig } = await startUserCluster(t);
  const refused = async (flags: Partial<CheckFlags> & { kubeconfig: string }, pattern: RegExp) => {
    await assert.rejects(check(flags), (err: unknown) => isHarnessError(err) && pattern.test(err.message));
  };
  await refused(
    { kubeconfig: '/nonexistent/kubeconfig' },
    /Expected --kubeconfig to be a kubeconfig file, got "\/nonexistent\/kubeconfig"/,
  );
  await refused(
    { kubeconfig, context: 'kind-other' },
    /Expected --context to be a context of the kubeconfig \(kind-theirs\), got "kind-other"/,
  );
  await refused(
    { kubeconfig, gateway: 'istio-ingressgateway' },
    /Expected --gateway to be <namespace>\/<service>/,
  );
  assert.deepEqual(api.requests, []);
});

test('an API server that does not answer: bad input naming the context and the server, exit 2', async (t) => {
  const { api, kubeconfig } = await startUserCluster(t);
  await api.close();
  await assert.rejects(
    check({ kubeconfig }),
    (err: unknown) =>
      isHarnessError(err) &&
      /Expected --context to be a cluster whose API server answers, got "kind-theirs"; http:\/\/127\.0\.0\.1/.test(
        err.message,
      ),
  );
});
