// Outbound through real listeners: client -> its pod's :15001 (PROXY v2) -> pooled HBONE -> the
// chosen endpoint's inbound -> echo app.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createSystemClock } from '../../../lib/index.ts';
import { createDiscoveryState } from '../../../mesh/discovery/index.ts';
import type { WorkloadEntry } from '../../../mesh/discovery/index.ts';
import { createHbonePool } from '../../../mesh/hbone/index.ts';
import { createCertificateAuthority } from '../../../mesh/pki/index.ts';
import { encodeProxyV2 } from '../../../mesh/proxy-protocol.ts';
import { startEchoApp, startTestPod, testWorkload } from '../../inbound/test/fixtures.ts';

const ca = await createCertificateAuthority();
const VIP = '127.85.0.1';

function entry(w: ReturnType<typeof testWorkload>, status: WorkloadEntry['status']): WorkloadEntry {
  return { ...w, node: 'node-1', status, protocol: 'HBONE', capacity: 1, services: ['default/httpbin'] };
}

/** Sends `payload` through the client pod's outbound capture to VIP:80; resolves with the echo or the error code. */
async function viaOutbound(clientPodIp: string, payload: string): Promise<string> {
  const socket = connect({ host: clientPodIp, port: 15001 });
  await once(socket, 'connect');
  socket.write(
    Buffer.concat([
      encodeProxyV2({ ip: clientPodIp, port: 40000 }, { ip: VIP, port: 80 }),
      Buffer.from(payload),
    ]),
  );
  socket.end();
  return new Promise((resolve) => {
    let echoed = '';
    socket.on('data', (d: Buffer) => (echoed += d.toString()));
    socket.on('end', () => {
      resolve(echoed);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code ?? 'error');
    });
  });
}

test('service VIP -> a HEALTHY endpoint over HBONE; UNHEALTHY skipped; none -> reset', async (t) => {
  const client = testWorkload(81, 1);
  const s1 = testWorkload(81, 2);
  const s2 = testWorkload(81, 3);
  const serverCert = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
  const clientCert = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
  await startEchoApp(t, s1.appIp, 8080);
  await startEchoApp(t, s2.appIp, 8080);
  const logs = { s1: await startTestPod(t, s1, serverCert), s2: await startTestPod(t, s2, serverCert) };
  const discovery = createDiscoveryState();
  let version = 0;
  const publish = (statuses: [WorkloadEntry['status'], WorkloadEntry['status']]): void => {
    version++;
    discovery.apply({
      type: 'delta',
      version: `v${String(version)}`,
      nonce: `n${String(version)}`,
      workloads: { upsert: [entry(s1, statuses[0]), entry(s2, statuses[1])], remove: [] },
      services: {
        upsert: [
          { namespace: 'default', name: 'httpbin', vip: VIP, ports: [{ port: 80, targetPort: 8080 }] },
        ],
        remove: [],
      },
    });
  };
  const pool = createHbonePool({ clock: createSystemClock() });
  t.after(() => {
    pool.destroy();
  });
  const sender = await startTestPod(t, client, clientCert, {}, { discovery, pool });
  const { pod } = sender;

  publish(['HEALTHY', 'UNHEALTHY']);
  assert.equal(await viaOutbound(client.podIp, 'to s1'), 'to s1');
  assert.ok(
    logs.s1.lines.some((l) =>
      /connection complete .*src\.identity=spiffe:\/\/cluster\.local\/ns\/default\/sa\/httpbin/.test(l),
    ),
  );
  assert.equal(logs.s2.lines.filter((l) => l.includes('connection complete')).length, 0);

  publish(['UNHEALTHY', 'HEALTHY']);
  assert.equal(await viaOutbound(client.podIp, 'to s2'), 'to s2');
  assert.equal(logs.s2.lines.filter((l) => l.includes('connection complete')).length, 1);

  publish(['UNHEALTHY', 'UNHEALTHY']);
  assert.equal(await viaOutbound(client.podIp, 'nowhere'), 'ECONNRESET');
  await pod.tracker.whenEmpty();
  assert.ok(
    sender.lines.some((l) =>
      /error .*connection complete .*direction=outbound .*error="no healthy upstream"/.test(l),
    ),
    sender.lines.join('\n'),
  );
  assert.ok(
    sender.lines.some((l) =>
      /info .*connection complete .*dst\.hbone_addr=127\.81\.0\.2:8080 .*direction=outbound bytes_sent=5 bytes_recv=5/.test(
        l,
      ),
    ),
    sender.lines.join('\n'),
  );
});
