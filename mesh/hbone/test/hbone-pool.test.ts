// The pool against real ztunnel inbound listeners (real HTTP/2, real TLS).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { createManualClock, createSystemClock } from '../../../lib/index.ts';
import { startEchoApp, startTestPod, testWorkload } from '../../../ztunnel/inbound/test/fixtures.ts';
import { createCertificateAuthority } from '../../pki/index.ts';
import { createHbonePool } from '../hbone-pool.ts';

const ca = await createCertificateAuthority();
const src = await ca.issue({ namespace: 'istio-system', serviceAccount: 'gateway' });
const dst = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });

async function startPod(t: { after: (fn: () => unknown) => void }, n: number, withApp = true) {
  const w = testWorkload(71, n);
  if (withApp) await startEchoApp(t, w.appIp, 8080);
  const { pod, metrics } = await startTestPod(t, w, dst);
  return {
    w,
    pod,
    metrics,
    key: { srcIdentity: src.spiffeId, dstIdentity: dst.spiffeId, dstAddr: `${w.podIp}:15008` },
  };
}

test('at most 100 streams per connection: 150 tunnels open 2 connections', async (t) => {
  const { w, key } = await startPod(t, 1);
  const pool = createHbonePool({ clock: createSystemClock() });
  t.after(() => {
    pool.destroy();
  });
  const tunnels = await Promise.all(
    Array.from({ length: 150 }, () => pool.connect(key, src, `${w.podIp}:8080`)),
  );
  assert.ok(tunnels.every((x) => x.status === 200));
  assert.equal(pool.stats().connectionsOpened, 2);
  for (const x of tunnels) x.stream.destroy();
});

test('after GOAWAY the pool opens a fresh connection (to the new ztunnel on the same address)', async (t) => {
  const old = await startPod(t, 2);
  const pool = createHbonePool({ clock: createSystemClock() });
  t.after(() => {
    pool.destroy();
  });
  const first = await pool.connect(old.key, src, `${old.w.podIp}:8080`);
  assert.equal(first.status, 200);
  // The upgrade: a second instance binds the same pod address (SO_REUSEPORT), the old one drains.
  await startTestPod(t, old.w, dst);
  const goaway = once(first.stream.session ?? first.stream, 'goaway');
  old.pod.stopAccepting();
  await goaway;
  const second = await pool.connect(old.key, src, `${old.w.podIp}:8080`);
  assert.equal(second.status, 200);
  assert.equal(pool.stats().goawaysSeen, 1);
  assert.equal(pool.stats().connectionsOpened, 2, 'a new connection, not a stream on the GOAWAY one');
  assert.notEqual(second.stream.session, first.stream.session);
  first.stream.destroy();
  second.stream.destroy();
});

test('a failed CONNECT is returned, not retried', async (t) => {
  const { w, key, metrics } = await startPod(t, 3, false);
  const pool = createHbonePool({ clock: createSystemClock() });
  t.after(() => {
    pool.destroy();
  });
  assert.equal((await pool.connect(key, src, `${w.podIp}:8080`)).status, 503);
  assert.match(await metrics.registry.metrics(), /istio_tcp_connections_opened_total\{[^}]*\} 1\n/);
});

test('a connection with no streams is released after 5 minutes idle', async (t) => {
  const { w, key } = await startPod(t, 4);
  const clock = createManualClock();
  // PINGs answered over real sockets cannot keep pace with a manual clock; they have their own test.
  const pool = createHbonePool({ clock, settings: { pingIntervalMs: 3_600_000 } });
  t.after(() => {
    pool.destroy();
  });
  const tunnel = await pool.connect(key, src, `${w.podIp}:8080`);
  const session = tunnel.stream.session;
  tunnel.stream.end();
  tunnel.stream.resume();
  await once(tunnel.stream, 'close');
  await clock.advance(4 * 60_000);
  assert.equal(pool.stats().connections, 1, 'kept while under 5 min idle');
  await clock.advance(61_000);
  assert.equal(pool.stats().connections, 0, 'released after 5 min idle');
  assert.ok(session?.closed);
});

test('PINGs keep a healthy connection; one whose PING goes unanswered is dropped', async (t) => {
  const { w, key } = await startPod(t, 6);
  // A TCP relay in front of the pod that can stop passing anything back (a silent peer).
  let silent = false;
  const relay = createServer((client) => {
    const upstream = connect({ host: w.podIp, port: 15008 });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
  });
  relay.listen({ host: '127.72.0.1', port: 15008 });
  await once(relay, 'listening');
  t.after(() => {
    relay.close();
  });
  const pool = createHbonePool({
    clock: createSystemClock(),
    settings: { pingIntervalMs: 30, pingTimeoutMs: 60 },
  });
  t.after(() => {
    pool.destroy();
  });
  const tunnel = await pool.connect({ ...key, dstAddr: '127.72.0.1:15008' }, src, `${w.podIp}:8080`);
  assert.equal(tunnel.status, 200);
  tunnel.stream.on('error', () => undefined);
  await new Promise((r) => setTimeout(r, 150));
  assert.deepEqual([pool.stats().connections, pool.stats().pingTimeouts], [1, 0], 'answered PINGs keep it');
  silent = true;
  await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(
    [pool.stats().connections, pool.stats().pingTimeouts],
    [0, 1],
    'an unanswered PING drops it',
  );
});
