// ztunnel's node-address mode (the kind backend's): a real ztunnel process with INPOD_ENABLED=false,
// pods from a real control plane's discovery, one HBONE listener on the node address, the identity
// chosen by SNI, or, for a client with no SNI (Envoy), the pod by the CONNECT's authority. Real
// sockets on loopback.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createLogger, createSystemClock } from '../../lib/index.ts';
import { startControlPlane } from '../../mesh/control-plane/index.ts';
import type { ClusterSource, PodView } from '../../mesh/control-plane/index.ts';
import { createHbonePool, openHboneSession, openTunnel } from '../../mesh/hbone/index.ts';
import {
  createTokenIssuer,
  formatSpiffeId,
  ISTIO_CA_AUDIENCE,
  writeCredentials,
} from '../../mesh/pki/index.ts';
import { startEchoApp } from '../inbound/test/fixtures.ts';
import { waitUntil } from '../../lib/test/wait-until.ts';
import { ZTUNNEL_IDENTITY } from '../ztunnel.ts';
import { spawnZtunnel } from './ztunnel-process.ts';

/** The addresses one test uses: this node's, the other node's, the pods' /24 and the control plane's. */
interface TestNet {
  nodeIp: string;
  otherNodeIp: string;
  podNet: string;
  cpHost: string;
}

const pod = (net: TestNet, n: number, node: string, serviceAccount: string): PodView => ({
  uid: `uid-${String(n)}`,
  name: `${serviceAccount}-${String(n)}`,
  namespace: 'default',
  nodeName: node,
  podIp: `${net.podNet}.${String(n)}`,
  serviceAccount,
  labels: { app: serviceAccount },
  isMeshed: true,
  isReady: true,
  isDeleting: false,
  isTerminal: false,
  tunnelAddress: `${node === 'node-1' ? net.nodeIp : net.otherNodeIp}:15008`,
});

const staticSource = (pods: PodView[]): ClusterSource => ({
  pods: () => pods,
  services: () => [],
  onChange: () => () => undefined,
});

const identity = (serviceAccount: string): string =>
  formatSpiffeId({ trustDomain: 'cluster.local', namespace: 'default', serviceAccount });

/**
 * A control plane with pods 1 (httpbin) and 2 (other) on node-1 and 3 (httpbin) on node-2, their
 * echo apps, and a real node-address ztunnel for node-1 on `net.nodeIp`, ready.
 */
async function startNodeOne(t: TestContext, net: TestNet) {
  const clock = createSystemClock();
  // ztunnel's own pod (not meshed): the CA authenticates its token and authorizes it for node-1.
  const ztunnelPod = { ...pod(net, 9, 'node-1', 'ztunnel'), namespace: 'istio-system', isMeshed: false };
  const pods = [
    pod(net, 1, 'node-1', 'httpbin'),
    pod(net, 2, 'node-1', 'other'),
    pod(net, 3, 'node-2', 'httpbin'),
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
    host: net.cpHost,
    debounceQuietMs: 10,
    debounceMaxMs: 100,
    pushLatencyMs: 0,
    ports: { xds: 0, ca: 0 },
  });
  t.after(() => cp.close());
  for (const n of [1, 2, 3]) await startEchoApp(t, `${net.podNet}.${String(n)}`, 8080);
  const dir = await mkdtemp(join(tmpdir(), 'node-mode-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const readyFile = join(dir, 'ready');
  const z = spawnZtunnel('zt-node-1', {
    NODE_NAME: 'node-1',
    NODE_IP: net.nodeIp,
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
  return { clock, cp, z, readyFile };
}

/** The first bytes back on a tunnel (the echo app's), or an error after 3 s. */
async function echoOf(stream: Duplex, text: string): Promise<string> {
  stream.write(text);
  return (await Promise.race([
    new Promise((resolve) =>
      stream.once('data', (d: Buffer) => {
        resolve(d.toString());
      }),
    ),
    new Promise((_, reject) =>
      setTimeout(() => {
        reject(new Error('no echo'));
      }, 3000),
    ),
  ])) as string;
}

const NET_SNI: TestNet = {
  nodeIp: '127.57.0.1',
  otherNodeIp: '127.57.0.2',
  podNet: '127.57.2',
  cpHost: '127.57.0.200',
};

test(
  "node-address mode: the node's pods by SNI identity on NODE_IP:15008; no relay to other nodes or identities",
  { timeout: 30_000 },
  async (t) => {
    const NODE_IP = NET_SNI.nodeIp;
    const { clock, cp, z, readyFile } = await startNodeOne(t, NET_SNI);

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
    assert.equal(await echoOf(ok.stream, 'ping'), 'ping');
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

const NET_NO_SNI: TestNet = {
  nodeIp: '127.57.1.1',
  otherNodeIp: '127.57.1.2',
  podNet: '127.57.3',
  cpHost: '127.57.1.200',
};

test(
  "node-address mode: a client with no SNI (Envoy's connect_originate) gets ztunnel's certificate and reaches this node's pods by authority, not another node's",
  { timeout: 30_000 },
  async (t) => {
    const { cp, z } = await startNodeOne(t, NET_NO_SNI);
    const gateway = await cp.ca.issue({ namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' });
    // No servername, and the host is an IP address, which TLS clients never send as SNI (RFC 6066
    // section 3): the handshake Envoy's connect_originate cluster makes. The check that the peer is
    // ztunnel itself fails the connect when any other certificate is served (an SNI path taken).
    const session = await openHboneSession({
      host: NET_NO_SNI.nodeIp,
      cert: gateway,
      expectedIdentity: formatSpiffeId({ trustDomain: 'cluster.local', ...ZTUNNEL_IDENTITY }),
    });
    t.after(() => {
      session.destroy();
    });

    // Two pods of this node with different identities, on one connection (Envoy pools per address).
    const httpbin = await openTunnel(session, '127.57.3.1:8080');
    assert.equal(httpbin.status, 200);
    assert.equal(await echoOf(httpbin.stream, 'one'), 'one');
    const other = await openTunnel(session, '127.57.3.2:8080');
    assert.equal(other.status, 200);
    assert.equal(await echoOf(other.stream, 'two'), 'two');
    // A pod of another node: refused (no open relay), with the reason logged.
    assert.equal((await openTunnel(session, '127.57.3.3:8080')).status, 400);
    await z.waitForLine(/connection failed.*127\.57\.3\.3 is no HBONE pod of node node-1/);

    // Each pod was served inbound with its own certificate, fetched for it (dst.identity).
    httpbin.stream.destroy();
    other.stream.destroy();
    const gatewayId = 'spiffe://cluster.local/ns/istio-system/sa/istio-ingressgateway';
    for (const [ip, sa] of [
      ['127.57.3.1', 'httpbin'],
      ['127.57.3.2', 'other'],
    ] as const) {
      const record = new RegExp(`connection complete.*dst\\.hbone_addr="?${ip}:8080`);
      await z.waitForLine(record);
      const complete = z.lines.find((l) => record.test(l)) ?? '';
      assert.ok(complete.includes(`dst.identity="${identity(sa)}"`), complete);
      assert.ok(complete.includes(`src.identity="${gatewayId}"`), complete);
    }
  },
);
