// The pool against real ztunnel inbound listeners (real HTTP/2, real TLS).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { createManualClock, createSystemClock } from '../../../lib/index.ts';
import { startEchoApp, startTestPod, testWorkload } from '../../../ztunnel/inbound/test/fixtures.ts';
import { createCertificateAuthority } from '../../pki/index.ts';
import { createHbonePool, type PoolEvent } from '../hbone-pool.ts';

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

/** A TCP relay in front of a pod's HBONE port that can stop passing anything back (a silent peer). */
async function startSilenceableRelay(t: { after: (fn: () => unknown) => void }, podIp: string, host: string) {
  let silent = false;
  const relay = createServer((client) => {
    const upstream = connect({ host: podIp, port: 15008 });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
  });
  relay.listen({ host, port: 15008 });
  await once(relay, 'listening');
  t.after(() => {
    relay.close();
  });
  return {
    silence() {
      silent = true;
    },
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
  const relay = await startSilenceableRelay(t, w.podIp, '127.72.0.1');
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
  relay.silence();
  await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(
    [pool.stats().connections, pool.stats().pingTimeouts],
    [0, 1],
    'an unanswered PING drops it',
  );
});

test('after both GOAWAYs the open tunnel keeps working, the client sends no GOAWAY of its own, and it closes once idle', async (t) => {
  const old = await startPod(t, 7);
  const pool = createHbonePool({ clock: createSystemClock() });
  t.after(() => {
    pool.destroy();
  });
  const tunnel = await pool.connect(old.key, src, `${old.w.podIp}:8080`);
  const session = tunnel.stream.session;
  assert.ok(session);
  // The server's view: did the client answer our GOAWAY with one of its own?
  const serverSession = [...old.pod.hbone.sessions][0];
  assert.ok(serverSession);
  let clientGoaways = 0;
  serverSession.on('goaway', () => clientGoaways++);
  // Two GOAWAYs, as the h2 crate's graceful shutdown sends them (2^31-1, then after a PING the
  // real last stream): Node's client would answer each with a GOAWAY of its own.
  const goaways: number[] = [];
  const both = new Promise<void>((resolve) => {
    session.on('goaway', (_code: number, last: number) => {
      if (goaways.push(last) === 2) resolve();
    });
  });
  old.pod.sendGoaway();
  await both;
  assert.deepEqual(goaways, [2 ** 31 - 1, 1]);
  await new Promise((r) => setTimeout(r, 50));
  tunnel.stream.write('still here');
  const [echo] = (await once(tunnel.stream, 'data')) as [Buffer];
  assert.equal(echo.toString(), 'still here', 'the tunnel opened before GOAWAY keeps working');
  assert.equal(clientGoaways, 0, 'no GOAWAY back while a stream is open (Envoy sends none)');
  assert.equal(session.closed, false);
  const closed = once(session, 'close');
  tunnel.stream.end();
  tunnel.stream.resume();
  await closed; // closed by the pool once its last stream is done
});

test('events name each connection: opened, ping, ping-timeout, then removed and closed with the reason', async (t) => {
  const { w, key } = await startPod(t, 8);
  const relay = await startSilenceableRelay(t, w.podIp, '127.72.0.2');
  const events: PoolEvent[] = [];
  const pool = createHbonePool({
    clock: createSystemClock(),
    settings: { pingIntervalMs: 30, pingTimeoutMs: 60 },
    onEvent: (e) => events.push(e),
  });
  t.after(() => {
    pool.destroy();
  });
  const tunnel = await pool.connect({ ...key, dstAddr: '127.72.0.2:15008' }, src, `${w.podIp}:8080`);
  tunnel.stream.on('error', () => undefined);
  relay.silence();
  await new Promise((r) => setTimeout(r, 250));
  const seen = events.map((e) => ('reason' in e ? `${e.type}:${e.reason}` : e.type));
  assert.equal(seen[0], 'opened');
  assert.equal(seen.filter((s) => s === 'ping-timeout').length, 1);
  const tail = seen.slice(seen.indexOf('ping-timeout'));
  assert.deepEqual(tail, ['ping-timeout', 'removed:ping-timeout', 'closed:ping-timeout']);
  assert.ok(events.every((e) => e.dstAddr === '127.72.0.2:15008'));
  assert.ok(seen.slice(1, seen.indexOf('ping-timeout')).every((s) => s === 'ping'));
});

test('back-off: after a failed connect, connects to that address fail at once until it ends (off by default)', async (t) => {
  const { w, key } = await startPod(t, 9);
  const nowhere = { ...key, dstAddr: '127.72.0.3:15008' }; // nothing listens there: refused
  const tryConnect = (pool: ReturnType<typeof createHbonePool>, k = nowhere): Promise<string> =>
    pool.connect(k, src, `${w.podIp}:8080`).then(
      (x) => String(x.status),
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  const clock = createManualClock();
  const events: PoolEvent[] = [];
  const pool = createHbonePool({
    clock,
    settings: { backoff: { initialMs: 100, maxMs: 150 } },
    onEvent: (e) => events.push(e),
  });
  t.after(() => {
    pool.destroy();
  });
  assert.match(await tryConnect(pool), /ECONNREFUSED/);
  assert.match(
    await tryConnect(pool),
    /backing off 127\.72\.0\.3:15008 after 1 failed connects \(100 ms left\)/,
  );
  assert.equal(await tryConnect(pool, key), '200', 'other destinations are not held back');
  await clock.advance(100);
  assert.match(await tryConnect(pool), /ECONNREFUSED/, 'tried again once the back-off ends');
  assert.match(await tryConnect(pool), /\(150 ms left\)/, 'doubled, capped at maxMs');
  assert.deepEqual(
    events.filter((e) => e.type === 'backoff').map((e) => e.ms),
    [100, 150],
  );
  const plain = createHbonePool({ clock });
  t.after(() => {
    plain.destroy();
  });
  assert.match(await tryConnect(plain), /ECONNREFUSED/);
  assert.match(await tryConnect(plain), /ECONNREFUSED/, 'upstream: every connect is tried');
});

test('GOAWAY after every stream (option 1 while a pod terminates): each new tunnel needs a new connection', async (t) => {
  const { w, key, pod } = await startPod(t, 10);
  let goaway = Promise.withResolvers<undefined>();
  const pool = createHbonePool({
    clock: createSystemClock(),
    onEvent: (e) => {
      if (e.type === 'goaway') goaway.resolve(undefined);
    },
  });
  t.after(() => {
    pool.destroy();
  });
  const oneTunnel = async (): Promise<void> => {
    const tunnel = await pool.connect(key, src, `${w.podIp}:8080`);
    assert.equal(tunnel.status, 200);
    tunnel.stream.end();
    tunnel.stream.resume();
    await once(tunnel.stream, 'close');
  };
  await oneTunnel();
  await oneTunnel();
  assert.equal(pool.stats().connectionsOpened, 1, 'before: one pooled connection carries both');
  pod.hbone.goawayAfterEveryStream();
  for (let i = 0; i < 3; i++) {
    await oneTunnel();
    // The GOAWAY follows the stream: the next app connection comes after it (as at 20 req/s).
    await goaway.promise;
    goaway = Promise.withResolvers<undefined>();
  }
  // The first of the three went on the pooled connection, each of the others on a new one.
  assert.equal(pool.stats().connectionsOpened, 3, 'after: a new connection per tunnel');
  assert.equal(pool.stats().goawaysSeen, 3);
});
