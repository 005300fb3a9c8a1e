// ztunnel's node-address mode (the kind backend's): a real ztunnel process with INPOD_ENABLED=false,
// pods from a real control plane's discovery, one HBONE listener on the node address, the identity
// chosen by SNI. Real sockets on loopback.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { startControlPlane } from '../../mesh/control-plane/index.ts';
import type { ClusterSource, PodView } from '../../mesh/control-plane/index.ts';
import { createHbonePool } from '../../mesh/hbone/index.ts';
import {
  createTokenIssuer,
  formatSpiffeId,
  ISTIO_CA_AUDIENCE,
  writeCredentials,
} from '../../mesh/pki/index.ts';
import { startEchoApp } from '../inbound/test/fixtures.ts';
import { waitUntil } from '../../lib/test/wait-until.ts';
import { spawnZtunnel } from './ztunnel-process.ts';

const NODE_IP = '127.57.0.1';
const pod = (n: number, node: string, serviceAccount: string): PodView => ({
  uid: `uid-${String(n)}`,
  name: `${serviceAccount}-${String(n)}`,
  namespace: 'default',
  nodeName: node,
  podIp: `127.57.2.${String(n)}`,
  serviceAccount,
  labels: { app: serviceAccount },
  isMeshed: true,
  isReady: true,
  isDeleting: false,
  isTerminal: false,
  tunnelAddress: `${node === 'node-1' ? NODE_IP : '127.57.0.2'}:15008`,
});

const staticSource = (pods: PodView[]): ClusterSource => ({
  pods: () => pods,
  services: () => [],
  onChange: () => () => undefined,
});

const identity = (serviceAccount: string): string =>
  formatSpiffeId({ trustDomain: 'cluster.local', namespace: 'default', serviceAccount });

test(
  "node-address mode: the node's pods by SNI identity on NODE_IP:15008; no relay to other nodes or identities",
  { timeout: 30_000 },
  async (t) => {
    const clock = createSystemClock();
    // ztunnel's own pod (not meshed): the CA authenticates its token and authorizes it for node-1.
    const ztunnelPod = { ...pod(9, 'node-1', 'ztunnel'), namespace: 'istio-system', isMeshed: false };
    const pods = [
      pod(1, 'node-1', 'httpbin'),
      pod(2, 'node-1', 'other'),
      pod(3, 'node-2', 'httpbin'),
      ztunnelPod,
    ];
    const tokens = await createTokenIssuer();
    const cp = await startControlPlane({
      source: staticSource(pods),
      authenticate: (token) =>
        tokens.review(
          token,
          ISTIO_CA_AUDIENCE,
          (ns, name) => pods.find((p) => p.namespace === ns && p.name === name)?.uid,
        ),
      clock,
      log: createLogger({ component: 'istiod', level: 'error' }),
      host: '127.57.0.200',
      debounceQuietMs: 10,
      debounceMaxMs: 100,
      pushLatencyMs: 0,
      ports: { xds: 0, ca: 0 },
    });
    t.after(() => cp.close());
    for (const n of [1, 2, 3]) await startEchoApp(t, `127.57.2.${String(n)}`, 8080);
    const dir = await mkdtemp(join(tmpdir(), 'node-mode-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const readyFile = join(dir, 'ready');
    const z = spawnZtunnel('zt-node-1', {
      NODE_NAME: 'node-1',
      NODE_IP,
      INPOD_ENABLED: 'false',
      XDS_ADDRESS: cp.xdsAddress,
      ...(await writeCredentials({ dir, caUrl: cp.caUrl, rootPem: cp.ca.rootPem, tokens, pod: ztunnelPod })),
      READY_FILE: readyFile,
      TERMINATION_GRACE_PERIOD_SECONDS: '2',
    });
    t.after(() => {
      if (!z.exited()) z.child.kill('SIGKILL');
    });
    await waitUntil(`${readyFile} written`, () => existsSync(readyFile), 10_000);

    const gateway = await cp.ca.issue({ namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' });
    const pool = createHbonePool({ clock });
    t.after(() => {
      pool.destroy();
    });
    const dial = (dstIdentity: string, authority: string) =>
      pool.connect(
        { srcIdentity: gateway.spiffeId, dstIdentity, dstAddr: `${NODE_IP}:15008` },
        gateway,
        authority,
      );

    const ok = await dial(identity('httpbin'), '127.57.2.1:8080');
    assert.equal(ok.status, 200);
    ok.stream.write('ping');
    const [echoed] = (await Promise.race([
      new Promise((resolve) =>
        ok.stream.once('data', (d: Buffer) => {
          resolve([d.toString()]);
        }),
      ),
      new Promise((_, reject) =>
        setTimeout(() => {
          reject(new Error('no echo'));
        }, 3000),
      ),
    ])) as [string];
    assert.equal(echoed, 'ping');
    ok.stream.destroy();

    // A pod of another node, and a pod of this node with another identity than the one served: 400.
    assert.equal((await dial(identity('httpbin'), '127.57.2.3:8080')).status, 400);
    assert.equal((await dial(identity('httpbin'), '127.57.2.2:8080')).status, 400);
    // The other identity, named by SNI, on its own pooled connection: served.
    assert.equal((await dial(identity('other'), '127.57.2.2:8080')).status, 200);
    // An identity no pod of this node has: the handshake is refused (no certificate handed out).
    await assert.rejects(dial(identity('nobody'), '127.57.2.1:8080'));
    assert.equal(pool.stats().connections, 2);

    // SIGTERM: the readiness file goes at once (the exec probe fails), the drain runs, exit 0.
    z.child.kill('SIGTERM');
    await z.waitForLine(/received signal/);
    assert.equal(existsSync(readyFile), false);
    const exit = await z.child;
    assert.equal(exit.exitCode, 0, z.lines.join('\n'));
    assert.ok(z.lines.some((l) => l.includes('listening on the node address')));
  },
);
