// Garbage to every listener the local cluster opens: the pods' captured ports and app addresses,
// every ztunnel port (15008, 15001, 15006, 15021, 15020 ...), the gateway (Envoy's 8080 and 15090,
// pilot-agent's 15021), httpbin, and the control plane's discovery, CA and Envoy mTLS xDS ports.
// Listeners are found, not listed: every TCP socket in LISTEN state on the cluster's address block
// (/proc/net/tcp) plus the control plane's three addresses; the gateway's and the control plane's
// are checked to be among them. Afterwards every process is alive, nothing reported a failure, and a
// request through the gateway is answered.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { it } from 'node:test';
import { createSystemClock } from '../../lib/index.ts';
import { childPids, isAlive } from '../../lib/test/processes.ts';
import { certificateAs } from './certificate-as.ts';
import { awaitServing } from '../kind/await-serving.ts';
import { createLocalBackend } from '../local/index.ts';
import { buildMeshManifests } from '../manifests/index.ts';
import { PROMETHEUS_PORT, STATUS_PORT } from '../../mesh/pilot-agent/agent-config.ts';

const BLOCK = 234;

/** host:port of every listening IPv4 TCP socket on 127.BLOCK.0.0/16 (the kernel's own table). */
async function listenersInBlock(): Promise<string[]> {
  const table = await readFile('/proc/net/tcp', 'utf8');
  const out = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state !== '0A' || !local) continue; // 0A = LISTEN
    const [hexIp = '', hexPort = ''] = local.split(':');
    const bytes = (hexIp.match(/../g) ?? []).map((b) => parseInt(b, 16)).reverse();
    if (bytes[0] !== 127 || bytes[1] !== BLOCK) continue;
    out.add(`${bytes.join('.')}:${String(parseInt(hexPort, 16))}`);
  }
  return [...out].sort();
}

const PAYLOADS: [string, Buffer][] = [
  ['random bytes', randomBytes(4096)],
  ['a truncated TLS ClientHello', Buffer.from('16030100c8010000c40303', 'hex')],
  [
    'an HTTP/2 preface, then garbage',
    Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), randomBytes(64)]),
  ],
  ['a 100 KB line', Buffer.from(`${'x'.repeat(100_000)}\n`)],
  ['not JSON', Buffer.from('{not json\n')],
  [
    'a truncated HTTP request',
    Buffer.from('GET /status/418 HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\nab'),
  ],
  [
    'a POST whose body is not JSON',
    Buffer.from(
      'POST /istio.v1.auth.IstioCertificateService/CreateCertificate HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{not json',
    ),
  ],
  ['nothing (half-open: FIN at once)', Buffer.alloc(0)],
];

/** Sends `payload`, half-closes, and waits up to 500 ms for the peer before dropping the connection. */
async function probe(address: string, payload: Buffer): Promise<void> {
  const [host = '', port = ''] = address.split(/:(?=\d+$)/);
  const socket = connect(Number(port), host);
  socket.on('error', () => undefined); // a reset is a fine answer to garbage
  socket.resume();
  // Not events.once: it rejects on 'error', and a reset here is an answer, not a failure.
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => {
      resolve();
    });
  });
  const connected = new Promise<void>((resolve) => {
    socket.once('connect', () => {
      resolve();
    });
  });
  try {
    await Promise.race([connected, closed]);
    if (socket.destroyed) return;
    socket.end(payload);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 500))]);
  } finally {
    socket.destroy();
  }
}

function get418(ingress: string): Promise<number> {
  const [host = '', port = ''] = ingress.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host, port: Number(port), path: '/status/418', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

it('every listener of the cluster survives garbage; the cluster still serves', async (t) => {
  const backend = createLocalBackend({ addressBlock: BLOCK });
  t.after(() => backend.close());
  const failures: string[] = [];
  backend.onFailure((err) => failures.push(err.message));
  await backend.up();
  await backend.apply(
    buildMeshManifests({
      ztunnel: { graceS: 2 },
      httpbin: { replicas: 2, mesh: 'ambient' },
      gateway: { mode: 'hbone' },
    }),
  );
  await backend.waitForReady({ timeoutMs: 15_000 });
  const { controlPlane, ingress } = backend.addresses();
  assert.ok(ingress, 'the gateway is up');
  const clock = createSystemClock();
  await awaitServing({ url: `http://${ingress}/get`, clock, deadlineMs: clock.now() + 15_000 });
  // Twice: each listing also holds its own short-lived `ps`.
  const first = await childPids(process.pid);
  const processes = (await childPids(process.pid)).filter((pid) => first.includes(pid));
  const listeners = [
    ...new Set([
      ...(await listenersInBlock()),
      controlPlane.xds,
      controlPlane.ca.replace(/^https:\/\//, ''),
      controlPlane.envoyXds,
    ]),
  ];
  assert.ok(listeners.length >= 10, `found only ${listeners.join(' ')}`);
  const gatewayIp = ingress.replace(/:\d+$/, '');
  const expected = [
    ingress, // Envoy's 0.0.0.0_8080, on the pod address
    `${gatewayIp}:${String(STATUS_PORT)}`, // pilot-agent's readiness
    `${gatewayIp}:${String(PROMETHEUS_PORT)}`, // Envoy's Prometheus listener from the bootstrap
    controlPlane.envoyXds,
  ];
  for (const address of expected)
    assert.ok(listeners.includes(address), `${address} among ${listeners.join(' ')}`);
  for (const address of listeners) for (const [, payload] of PAYLOADS) await probe(address, payload);
  t.diagnostic(`${String(listeners.length)} listeners x ${String(PAYLOADS.length)} payloads`);
  assert.deepEqual(
    processes.filter((pid) => !isAlive(pid)),
    [],
    'every cluster process is alive',
  );
  assert.deepEqual(failures, []);
  assert.equal(await get418(ingress), 418);
  const cert = await certificateAs(backend, 'default', 'fuzz');
  assert.match(cert.certPem, /BEGIN CERTIFICATE/);
});
