// ztunnel's certificates as kind wires them (issue 33, prediction 1): istiod's pod list from
// Kubernetes watches (createKubeClusterSource, client-node informers against the API server double),
// its CA authenticating callers by TokenReview, and a real ztunnel process as the DaemonSet runs it
// on kind: hostNetwork (its pod's IP is the node's), node-address mode, every certificate asked for
// by impersonation with its own pod-bound token. Before host-network pods reached the CA's node
// authorizer, ztunnel's first request was refused (401, "pod istio-system/ztunnel-... not found")
// and the process exited. The same run twice: ztunnel speaking our protocols (JSON-lines discovery,
// the HTTPS/JSON CA) and speaking istiod's (XDS_ADDRESS https://: delta ADS on our control plane's
// ztunnel port and the CA over gRPC, as with Istio's istiod), where a pod's deletion reaches it as
// a removal by resource name.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServerDouble } from '../../clusters/kind/test/api-server-double.ts';
import { kindKubeconfig } from '../../clusters/kind/test/fake-kind-docker.ts';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { waitUntil } from '../../lib/test/wait-until.ts';
import { startControlPlane } from '../../mesh/control-plane/index.ts';
import { createKubeClusterSource } from '../../mesh/control-plane/kube-source.ts';
import { createTokenReviewAuthenticator } from '../../mesh/control-plane/token-review.ts';
import { createCaClient } from '../../mesh/pki/index.ts';
import { spawnZtunnel } from './ztunnel-process.ts';

const NODE_IP = '127.66.0.1';
const CP_HOST = '127.66.0.200';
const ZTUNNEL_TOKEN = 'ztunnel-pod-bound-token';

const kubePod = (p: {
  name: string;
  namespace: string;
  serviceAccount: string;
  podIp: string;
  hostNetwork?: boolean;
  labels?: Record<string, string>;
}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: p.name, namespace: p.namespace, uid: `uid-${p.name}`, labels: p.labels ?? {} },
  spec: { nodeName: 'node-1', serviceAccountName: p.serviceAccount, hostNetwork: p.hostNetwork ?? false },
  status: {
    phase: 'Running',
    podIP: p.podIp,
    hostIP: NODE_IP,
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

for (const protocols of ['ours', "istiod's"] as const)
  test(
    `kind: hostNetwork ztunnel gets its own and its node's pods' certificates by impersonation (${protocols} protocols)`,
    { timeout: 30_000 },
    async (t) => {
      // TokenReview as the API server answers it for ztunnel's projected token (audience istio-ca).
      const api = await startApiServerDouble({
        reviewToken: (token, audiences) =>
          token === ZTUNNEL_TOKEN && audiences.includes('istio-ca')
            ? {
                authenticated: true,
                audiences: ['istio-ca'],
                user: {
                  username: 'system:serviceaccount:istio-system:ztunnel',
                  extra: {
                    'authentication.kubernetes.io/pod-name': ['ztunnel-7xk2p'],
                    'authentication.kubernetes.io/pod-uid': ['uid-ztunnel-7xk2p'],
                    'authentication.kubernetes.io/node-name': ['node-1'],
                  },
                },
              }
            : { authenticated: false, error: 'invalid bearer token' },
      });
      t.after(() => api.close());
      api.put(
        'pods',
        kubePod({
          name: 'ztunnel-7xk2p',
          namespace: 'istio-system',
          serviceAccount: 'ztunnel',
          podIp: NODE_IP,
          hostNetwork: true,
          labels: { app: 'ztunnel' },
        }),
      );
      api.put(
        'pods',
        kubePod({
          name: 'httpbin-a',
          namespace: 'default',
          serviceAccount: 'httpbin',
          podIp: '10.244.1.5',
          labels: { app: 'httpbin', 'istio.io/dataplane-mode': 'ambient' },
        }),
      );

      // istiod's halves as mesh/control-plane/main.ts wires them on kind.
      const kc = new KubeConfig();
      kc.loadFromString(kindKubeconfig('identity', api.url));
      const source = createKubeClusterSource(kc, { tunnel: 'node' });
      await source.start();
      t.after(() => source.stop());
      const refusals: string[] = [];
      const cp = await startControlPlane({
        source,
        authenticate: createTokenReviewAuthenticator(kc),
        clock: createSystemClock(),
        log: createLogger({ component: 'istiod', level: 'warn', write: (l) => refusals.push(l) }),
        host: CP_HOST,
        debounceQuietMs: 10,
        debounceMaxMs: 100,
        pushLatencyMs: 0,
        ports: { xds: 0, ca: 0 },
      });
      t.after(() => cp.close());

      // ztunnel with the chart's mounts: the root ConfigMap and the pod-bound token.
      const dir = await mkdtemp(join(tmpdir(), 'kind-identity-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      await writeFile(join(dir, 'root-cert.pem'), cp.ca.rootPem);
      await writeFile(join(dir, 'istio-token'), ZTUNNEL_TOKEN);
      const readyFile = join(dir, 'ready');
      const istiods = protocols === "istiod's";
      const z = spawnZtunnel('ztunnel-7xk2p', {
        NODE_NAME: 'node-1',
        NODE_IP,
        INPOD_ENABLED: 'false',
        ...(istiods
          ? {
              XDS_ADDRESS: `https://${cp.ztunnelXdsAddress}`,
              CA_ADDRESS: `https://${cp.ztunnelXdsAddress}`,
              POD_NAME: 'ztunnel-7xk2p',
              POD_NAMESPACE: 'istio-system',
              ISTIO_META_CLUSTER_ID: 'Kubernetes',
            }
          : { XDS_ADDRESS: cp.xdsAddress, CA_ADDRESS: cp.caUrl }),
        CA_ROOT_CA: join(dir, 'root-cert.pem'),
        AUTH_TOKEN: join(dir, 'istio-token'),
        READY_FILE: readyFile,
        TERMINATION_GRACE_PERIOD_SECONDS: '1',
      });
      t.after(() => {
        if (!z.exited()) z.child.kill('SIGKILL');
      });
      await waitUntil('ztunnel ready or exited', () => existsSync(readyFile) || z.exited(), 15_000);
      if (z.exited()) {
        const { exitCode, stderr } = await z.child;
        assert.fail(
          `ztunnel exited ${String(exitCode)}: ${String(stderr)}\nCA refusals:\n${refusals.join('\n')}`,
        );
      }

      // Its node's ambient pod's identity, asked for with ztunnel's token as ztunnel asks per SNI.
      const asZtunnel = createCaClient({
        ...(istiods
          ? { address: `https://${cp.ztunnelXdsAddress}`, protocol: 'grpc' as const }
          : { address: cp.caUrl }),
        rootPem: cp.ca.rootPem,
        token: () => ZTUNNEL_TOKEN,
        impersonate: true,
      });
      const cert = await asZtunnel({ namespace: 'default', serviceAccount: 'httpbin' });
      assert.equal(cert.spiffeId, 'spiffe://cluster.local/ns/default/sa/httpbin');
      // The node authorizer still holds: no pod of that identity on node-1.
      await assert.rejects(asZtunnel({ namespace: 'default', serviceAccount: 'other' }), /answered 401/);
      // Discovery still leaves the host-network pod out.
      const names = cp.lastPushed().workloads.map((w) => w.name);
      assert.deepEqual(names, ['httpbin-a']);
      // The pod deleted: its removal reaches ztunnel, which names it (the kind run's removal lag).
      api.remove('pods', 'default', 'httpbin-a');
      await z.waitForLine(/received response.*removes=1\b.*workloads="default\/httpbin-a"/);
      assert.ok(!z.lines.some((l) => l.includes('discovery update rejected')), z.lines.join('\n'));

      z.child.kill('SIGTERM');
      const result = await z.child;
      assert.equal(result.exitCode, 0, String(result.stderr));
    },
  );
