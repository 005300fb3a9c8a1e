// Real sockets, real HTTP/2 and TLS: the pod's inbound listeners as a peer sees them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { openHboneSession, openTunnel } from '../../../mesh/hbone/index.ts';
import { createDiscoveryState } from '../../../mesh/discovery/index.ts';
import { createCertificateAuthority } from '../../../mesh/pki/index.ts';
import { waitUntil } from '../../../lib/test/wait-until.ts';
import { startEchoApp, startTestPod, testWorkload } from './fixtures.ts';

const ca = await createCertificateAuthority();
const gatewayCert = await ca.issue({ namespace: 'istio-system', serviceAccount: 'gateway' });
const podCert = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });

async function roundTrip(stream: NodeJS.ReadWriteStream & { end(): void }, payload: string): Promise<string> {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.write(payload);
  stream.end();
  await once(stream, 'end');
  return Buffer.concat(chunks).toString();
}

test('CONNECT to a live pod: 200, bytes both ways, one access-log line with the bytes', async (t) => {
  const w = testWorkload(31, 1);
  await startEchoApp(t, w.appIp, 8080);
  const { pod, lines, metrics } = await startTestPod(t, w, podCert);

  const session = await openHboneSession({
    host: w.podIp,
    cert: gatewayCert,
    expectedIdentity: podCert.spiffeId,
  });
  t.after(() => {
    session.destroy();
  });
  const tunnel = await openTunnel(session, `${w.podIp}:8080`);
  assert.equal(tunnel.status, 200);
  assert.equal(await roundTrip(tunnel.stream, 'hello through hbone'), 'hello through hbone');
  await pod.tracker.whenEmpty();
  const line = lines.find((l) => l.includes('connection complete'));
  assert.match(
    line ?? '',
    /info {2}ztunnel connection complete .*dst\.hbone_addr=127\.31\.0\.1:8080 .*direction=inbound bytes_sent=19 bytes_recv=19/,
  );
  assert.match(line ?? '', /src\.identity=spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/gateway/);
  assert.match(
    await metrics.registry.metrics(),
    /istio_tcp_connections_opened_total\{[^}]*destination_workload="httpbin-1"[^}]*\} 1/,
  );
});

test('CONNECT to a pod whose app is down: 503 and "connection failed: Connection refused"', async (t) => {
  const w = testWorkload(31, 2);
  const { pod, lines, metrics } = await startTestPod(t, w, podCert);
  const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
  t.after(() => {
    session.destroy();
  });
  const tunnel = await openTunnel(session, `${w.podIp}:8080`);
  assert.equal(tunnel.status, 503);
  await pod.tracker.whenEmpty();
  assert.ok(
    lines.some((l) =>
      /error ztunnel connection complete .*error="connection failed: Connection refused \(os error 111\)"/.test(
        l,
      ),
    ),
    lines.join('\n'),
  );
  // Upstream 1.28 has no failed counter: a closed connection flagged CONNECT.
  assert.match(
    await metrics.registry.metrics(),
    /istio_tcp_connections_closed_total\{[^}]*response_flags="CONNECT"[^}]*\} 1/,
  );
});

test('CONNECT naming an address that is not this pod is refused with 400 (no open relay)', async (t) => {
  const w = testWorkload(31, 3);
  const other = testWorkload(31, 4);
  await startEchoApp(t, other.appIp, 8080);
  await startTestPod(t, w, podCert);
  const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
  t.after(() => {
    session.destroy();
  });
  assert.equal((await openTunnel(session, `${other.appIp}:8080`)).status, 400);
  assert.equal((await openTunnel(session, `${other.podIp}:8080`)).status, 400);
  assert.equal((await openTunnel(session, 'not-an-authority')).status, 400);
});

test('a client whose certificate comes from another CA cannot complete the handshake', async (t) => {
  const w = testWorkload(31, 5);
  await startTestPod(t, w, podCert);
  const foreign = await (
    await createCertificateAuthority()
  ).issue({ namespace: 'default', serviceAccount: 'evil' });
  await assert.rejects(openHboneSession({ host: w.podIp, cert: foreign }));
});

test('plaintext capture: pod IP:port reaches the app; with the app gone the connection is reset', async (t) => {
  const w = testWorkload(31, 6);
  const app = await startEchoApp(t, w.appIp, 8080);
  await startTestPod(t, w, podCert);
  const live = connect({ host: w.podIp, port: 8080 });
  assert.equal(await roundTrip(live, 'plain bytes'), 'plain bytes');

  app.close();
  await once(app, 'close');
  const dead = connect({ host: w.podIp, port: 8080 });
  dead.write('GET / HTTP/1.1\r\n\r\n');
  const [err] = (await once(dead, 'error')) as [NodeJS.ErrnoException];
  assert.equal(err.code, 'ECONNRESET');
});

test('drain: GOAWAY to the HBONE client, the open tunnel keeps working, new connections are refused', async (t) => {
  const w = testWorkload(31, 7);
  await startEchoApp(t, w.appIp, 8080);
  const { pod } = await startTestPod(t, w, podCert);
  const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
  t.after(() => {
    session.destroy();
  });
  const tunnel = await openTunnel(session, `${w.podIp}:8080`);
  const goaway = once(session, 'goaway');
  pod.stopAccepting();
  const [code] = (await goaway) as [number];
  assert.equal(code, 0, 'GOAWAY NO_ERROR');
  assert.equal(await roundTrip(tunnel.stream, 'still here'), 'still here');
  await assert.rejects(openHboneSession({ host: w.podIp, cert: gatewayCert }), /ECONNREFUSED/);
});

test('destroy drops the HBONE connection whole (no GOAWAY, no RST_STREAM) and counts what was in flight', async (t) => {
  const w = testWorkload(31, 8, [8080, 8081]);
  await startEchoApp(t, w.appIp, 8080);
  // An app that reads and never answers: a request on it stays in flight.
  const silent = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.resume();
  });
  silent.listen({ host: w.appIp, port: 8081 });
  await once(silent, 'listening');
  t.after(() => silent.close());
  const { pod } = await startTestPod(t, w, podCert);
  const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
  t.after(() => {
    session.destroy();
  });
  let goaways = 0;
  session.on('goaway', () => goaways++);
  const answered = await openTunnel(session, `${w.podIp}:8080`);
  answered.stream.write('ping');
  await once(answered.stream, 'data');
  const waiting = await openTunnel(session, `${w.podIp}:8081`);
  waiting.stream.write('GET / HTTP/1.1\r\n\r\n');
  await waitUntil('the unanswered request seen in flight', () => pod.tracker.inFlight() === 1);
  for (const s of [answered.stream, waiting.stream]) s.on('error', () => undefined);
  const sessionClosed = once(session, 'close');
  assert.deepEqual(pod.destroy('connection closed due to connection drain'), { connections: 2, inFlight: 1 });
  await sessionClosed;
  assert.equal(goaways, 0, 'no GOAWAY on the forced path');
  assert.ok(
    answered.stream.destroyed && waiting.stream.destroyed,
    'both tunnels ended with their connection',
  );
});

test('with discovery, a CONNECT waits for the workload to be known: 200 once it is, 503 when it never is', async (t) => {
  const w = testWorkload(31, 9);
  await startEchoApp(t, w.appIp, 8080);
  const discovery = createDiscoveryState();
  const { pod, lines } = await startTestPod(t, w, podCert, {
    awaitWorkload: (ip) => discovery.waitForWorkload(ip, 300),
  });
  const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
  t.after(() => {
    session.destroy();
  });

  const startMs = performance.now();
  assert.equal((await openTunnel(session, `${w.podIp}:8080`)).status, 503);
  assert.ok(performance.now() - startMs >= 290, 'answered only after the wait');
  await pod.tracker.whenEmpty();
  assert.ok(
    lines.some((l) => /error="destination workload 127\.31\.0\.9 still unknown to discovery"/.test(l)),
  );

  const pending = openTunnel(session, `${w.podIp}:8080`);
  setTimeout(() => {
    discovery.apply({
      type: 'delta',
      version: 'v1',
      nonce: 'n1',
      workloads: {
        upsert: [{ ...w, node: 'n', status: 'HEALTHY', protocol: 'HBONE', capacity: 1, services: [] }],
        remove: [],
      },
      services: { upsert: [], remove: [] },
    });
  }, 100);
  const tunnel = await pending;
  assert.equal(tunnel.status, 200);
  tunnel.stream.destroy();
});

/** An echo app behind its pod's listeners, and a client HBONE session to it counting GOAWAYs. */
async function podWithClientSession(t: { after: (fn: () => unknown) => void }, n: number) {
  const w = testWorkload(31, n);
  await startEchoApp(t, w.appIp, 8080);
  const { pod } = await startTestPod(t, w, podCert);
  const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
  t.after(() => {
    session.destroy();
  });
  let goaways = 0;
  session.on('goaway', () => goaways++);
  return { w, pod, session, goaways: () => goaways };
}

test('freeze (the pod network gone first): the HBONE connection goes silent - no GOAWAY, no close, PINGs unanswered', async (t) => {
  const { w, pod, session, goaways } = await podWithClientSession(t, 10);
  const tunnel = await openTunnel(session, `${w.podIp}:8080`);
  tunnel.stream.on('error', () => undefined);
  tunnel.stream.write('ping');
  await once(tunnel.stream, 'data');
  assert.deepEqual(pod.freeze('pod deleted'), { connections: 1, inFlight: 0 });
  const answered = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => {
      resolve('no answer');
    }, 300);
    session.ping(() => {
      clearTimeout(timer);
      resolve('answered');
    });
  });
  assert.equal(answered, 'no answer', 'a PING to the gone pod is never answered');
  assert.equal(goaways(), 0, 'nothing reaches the client: no GOAWAY');
  assert.equal(session.closed || session.destroyed, false, 'nor a close');
  tunnel.stream.write('anyone?');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(tunnel.stream.destroyed, false, 'the tunnel is just silent');
});

test('drain at CNI DEL (option 2): GOAWAY, then TLS close_notify and FIN; the client session ends cleanly', async (t) => {
  const { w, pod, session, goaways } = await podWithClientSession(t, 11);
  let sessionError: unknown;
  session.on('error', (err: unknown) => {
    sessionError = err;
  });
  // One tunnel used and finished: the app has exited by the time CNI DEL runs.
  const tunnel = await openTunnel(session, `${w.podIp}:8080`);
  tunnel.stream.end('bye');
  tunnel.stream.resume();
  await once(tunnel.stream, 'close');
  const closed = once(session, 'close');
  assert.deepEqual(await pod.drainGracefully(200), { goaways: 1, closeNotify: 1 });
  await closed;
  assert.equal(goaways(), 1);
  assert.equal(sessionError, undefined, 'a clean end, not an error');
});

test('destroy with reset (test only: the planted rst-at-deadline regression) resets the HBONE connection; without, it closes', async (t) => {
  const outcomes: string[] = [];
  for (const [n, reset] of [
    [12, false],
    [13, true],
  ] as const) {
    const w = testWorkload(31, n);
    await startEchoApp(t, w.appIp, 8080);
    const { pod } = await startTestPod(t, w, podCert);
    const session = await openHboneSession({ host: w.podIp, cert: gatewayCert });
    t.after(() => {
      session.destroy();
    });
    const tunnel = await openTunnel(session, `${w.podIp}:8080`);
    tunnel.stream.on('error', () => undefined);
    tunnel.stream.write('ping');
    await once(tunnel.stream, 'data');
    const outcome = new Promise<string>((resolve) => {
      session.once('error', (err: NodeJS.ErrnoException) => {
        resolve(err.code ?? err.message);
      });
      session.once('close', () => {
        resolve('closed');
      });
    });
    pod.destroy('connection closed due to connection drain', reset);
    outcomes.push(await outcome);
  }
  assert.deepEqual(outcomes, ['closed', 'ECONNRESET']);
});
