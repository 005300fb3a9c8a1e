// The istiod process of the kind backend (mesh/control-plane/main.ts) against a Kubernetes API
// server double: pods and services from real client-node watches, pushed over real discovery.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { startApiServerDouble } from '../../../clusters/kind/test/api-server-double.ts';
import { kindKubeconfig } from '../../../clusters/kind/test/fake-kind-docker.ts';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import { spawnNodeProcess } from '../../../lib/test/node-process.ts';
import { waitUntil } from '../../../lib/test/wait-until.ts';
import { connectDiscovery } from '../../discovery/index.ts';
import { createCaClient } from '../../pki/index.ts';

const MAIN = join(PROJECT_ROOT, 'mesh', 'control-plane', 'main.ts');

const pod = (name: string, patch: { labels?: Record<string, string>; hostNetwork?: boolean }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: patch.labels ?? {} },
  spec: { nodeName: 'node-1', serviceAccountName: 'httpbin', hostNetwork: patch.hostNetwork ?? false },
  status: {
    phase: 'Running',
    podIP: patch.hostNetwork ? '172.18.0.3' : `10.244.1.${String(name.length)}`,
    hostIP: '172.18.0.3',
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

describe('istiod process (kind)', () => {
  it('pushes pods and services from Kubernetes watches; node tunnel addresses; deletion -> UNHEALTHY', async (t) => {
    // TokenReview as the API server answers it for a pod-bound token of audience istio-ca.
    const api = await startApiServerDouble({
      reviewToken: (token, audiences) => {
        if (!audiences.includes('istio-ca')) return { authenticated: false, error: 'wrong audience' };
        if (token === 'httpbin-token')
          return {
            authenticated: true,
            audiences: ['istio-ca'],
            user: {
              username: 'system:serviceaccount:default:httpbin',
              extra: { 'authentication.kubernetes.io/pod-name': ['httpbin-a'] },
            },
          };
        if (token === 'ztunnel-token')
          return {
            authenticated: true,
            audiences: ['istio-ca'],
            user: {
              username: 'system:serviceaccount:istio-system:ztunnel',
              extra: {
                'authentication.kubernetes.io/pod-name': ['ztunnel-x'],
                'authentication.kubernetes.io/pod-uid': ['uid-ztunnel-x'],
              },
            },
          };
        return { authenticated: false, error: 'invalid bearer token' };
      },
    });
    t.after(() => api.close());
    api.put('pods', pod('httpbin-a', { labels: { app: 'httpbin', 'istio.io/dataplane-mode': 'ambient' } }));
    api.put('pods', pod('plain-b', { labels: { app: 'plain' } }));
    // ztunnel as kind runs it: hostNetwork, istio-system/ztunnel, on node-1 beside httpbin-a.
    const ztunnelPod = pod('ztunnel-x', { labels: { app: 'ztunnel' }, hostNetwork: true });
    api.put('pods', {
      ...ztunnelPod,
      metadata: { ...ztunnelPod.metadata, namespace: 'istio-system' },
      spec: { ...ztunnelPod.spec, serviceAccountName: 'ztunnel' },
    });
    api.put('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'httpbin', namespace: 'default' },
      spec: {
        clusterIP: '10.96.0.10',
        selector: { app: 'httpbin' },
        ports: [{ port: 8000, targetPort: 8080 }],
      },
    });
    const dir = await mkdtemp(join(tmpdir(), 'istiod-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'kubeconfig'), kindKubeconfig('test', api.url));
    const istiod = spawnNodeProcess(MAIN, {
      KUBECONFIG: join(dir, 'kubeconfig'),
      AMBIENT_TUNNEL: 'node',
      LOCAL_BIND_ADDRESS: '127.58.0.200',
      XDS_PORT: '0',
      CA_PORT: '0',
      READINESS_PORT: '0',
      PILOT_DEBOUNCE_AFTER: '20',
    });
    const { lines } = istiod;
    t.after(() => {
      if (!istiod.exited()) istiod.child.kill('SIGKILL');
    });
    const listening = (): RegExpExecArray | undefined =>
      lines.map((l) => /istiod listening xds=(\S+):(\d+) /.exec(l)).find(Boolean) ?? undefined;
    await waitUntil('istiod listening', () => listening() !== undefined || istiod.exited());
    const [, host = '', port = ''] = listening() ?? [];
    // The double serves no networking.istio.io: said once, and istiod runs on without routes.
    assert.equal(lines.filter((l) => /routing API not served/.test(l)).length, 1, lines.join('\n'));
    const client = await connectDiscovery({ host, port: Number(port), node: 'node-1', instance: 'test' });
    t.after(() => {
      client.close();
    });
    await client.synced;
    const state = client.state;

    const byName = (name: string) => state.workloads().find((w) => w.name === name);
    assert.deepEqual(
      { protocol: byName('httpbin-a')?.protocol, tunnel: byName('httpbin-a')?.tunnelAddress },
      { protocol: 'HBONE', tunnel: '172.18.0.3:15008' },
    );
    assert.equal(byName('plain-b')?.protocol, 'TCP');
    assert.equal(byName('plain-b')?.tunnelAddress, undefined);
    assert.equal(byName('ztunnel-x'), undefined, 'host-network pods are left out of discovery');
    const svc = state.serviceByName('default', 'httpbin');
    assert.ok(svc, 'service default/httpbin pushed');
    assert.deepEqual(svc.ports, [{ port: 8000, targetPort: 8080 }]);
    assert.deepEqual(
      state.endpointsOf(svc).map((w) => w.name),
      ['httpbin-a'],
    );

    // The CA: the root published for the chart's volume; callers authenticated by TokenReview.
    const configMap = api.get('configmaps', 'istio-system', 'istio-ca-root-cert') as
      { data?: Record<string, string> } | undefined;
    const rootPem = configMap?.data?.['root-cert.pem'] ?? '';
    assert.match(rootPem, /BEGIN CERTIFICATE/);
    // Also where the injected sidecar (pilot-agent + Envoy) beside httpbin mounts it.
    const inDefault = api.get('configmaps', 'default', 'istio-ca-root-cert') as
      { data?: Record<string, string> } | undefined;
    assert.equal(inDefault?.data?.['root-cert.pem'], rootPem);
    // Envoy's mTLS ADS, on a port of its own.
    const envoyXds = /envoy_xds=(\S+)/.exec(lines.find((l) => /istiod listening/.test(l)) ?? '')?.[1] ?? '';
    assert.match(envoyXds, /^127\.58\.0\.200:\d+$/);
    assert.notEqual(envoyXds, `${host}:${port}`);
    const caUrl = /ca=(\S+)/.exec(lines.find((l) => /istiod listening/.test(l)) ?? '')?.[1] ?? '';
    const ask = (token: string) =>
      createCaClient({ address: caUrl, rootPem, token: () => token, impersonate: false })({
        namespace: 'default',
        serviceAccount: 'httpbin',
      });
    assert.equal((await ask('httpbin-token')).spiffeId, 'spiffe://cluster.local/ns/default/sa/httpbin');
    await assert.rejects(ask('stolen'), /answered 401/);
    // ...but known to the CA: the host-network ztunnel's impersonated request for a pod on its node
    // is signed (istiod's node authorizer reads every pod, security/pkg/server/ca/node_auth.go).
    const asZtunnel = createCaClient({
      address: caUrl,
      rootPem,
      token: () => 'ztunnel-token',
      impersonate: true,
    });
    assert.equal(
      (await asZtunnel({ namespace: 'default', serviceAccount: 'httpbin' })).spiffeId,
      'spiffe://cluster.local/ns/default/sa/httpbin',
    );
    assert.ok(api.requests.some((r) => r.path === '/apis/authentication.k8s.io/v1/tokenreviews'));

    // kubectl delete: the API server sets deletionTimestamp (the double's DELETE does too).
    const deleting = pod('httpbin-a', { labels: { app: 'httpbin', 'istio.io/dataplane-mode': 'ambient' } });
    api.put('pods', {
      ...deleting,
      metadata: { ...deleting.metadata, deletionTimestamp: new Date().toISOString() },
    });
    await waitUntil('UNHEALTHY pushed', () => byName('httpbin-a')?.status === 'UNHEALTHY');
    await waitUntil('push logged', () => lines.some((l) => /pushed .*unhealthy=default\/httpbin-a/.test(l)));
    api.remove('pods', 'default', 'httpbin-a');
    await waitUntil('removal pushed', () => byName('httpbin-a') === undefined);

    istiod.child.kill('SIGTERM');
    const result = await istiod.child;
    assert.equal(result.exitCode, 0, String(result.stderr));
  });

  it('refuses a bad setting with exit 2 naming it', async () => {
    const result = await execa(process.execPath, [MAIN], {
      env: { AMBIENT_TUNNEL: 'sideways' },
      reject: false,
    });
    assert.equal(result.exitCode, 2);
    assert.match(result.stderr, /AMBIENT_TUNNEL to be pod or node, got "sideways"/);
  });
});
