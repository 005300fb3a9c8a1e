import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { createSystemClock } from '../lib/index.ts';
import type { WorkloadEntry } from '../mesh/discovery/index.ts';
import { createHbonePool, openHboneSession, openTunnel } from '../mesh/hbone/index.ts';
import { createCertificateAuthority } from '../mesh/pki/index.ts';
import { applyDrainStrategy, parseDrainStrategy } from './drain-strategy.ts';
import { startEchoApp, startTestPod, testWorkload } from './inbound/test/fixtures.ts';

const ca = await createCertificateAuthority();
const client = await ca.issue({ namespace: 'istio-system', serviceAccount: 'gateway' });
const server = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
const entryOf = (w: ReturnType<typeof testWorkload>): WorkloadEntry => ({
  ...w,
  node: 'n',
  status: 'UNHEALTHY',
  capacity: 1,
  protocol: 'HBONE',
  services: [],
});

test("goaway-on-unhealthy: GOAWAY to the pod's HBONE clients while its listeners keep accepting", async (t) => {
  const w = testWorkload(87, 1);
  const { pod } = await startTestPod(t, w, server);
  const session = await openHboneSession({ host: w.podIp, cert: client });
  t.after(() => {
    session.destroy();
  });
  // One CONNECT round trip: the server side has registered the connection by its answer.
  assert.equal((await openTunnel(session, `${w.podIp}:8080`)).status, 503);
  const goaway = once(session, 'goaway');
  const change = { becameUnhealthy: [entryOf(w)], removed: [] };
  assert.deepEqual(applyDrainStrategy('none', change, { podsByUid: new Map([[w.uid, pod]]) }), {
    goaways: 0,
    evicted: 0,
  });
  assert.deepEqual(
    applyDrainStrategy('goaway-on-unhealthy', change, { podsByUid: new Map([[w.uid, pod]]) }),
    { goaways: 1, evicted: 0 },
  );
  await goaway;
  const fresh = await openHboneSession({ host: w.podIp, cert: client });
  fresh.destroy();
});

test('evict-on-removal: pooled connections to a removed workload are dropped', async (t) => {
  const w = testWorkload(87, 2);
  await startEchoApp(t, w.appIp, 8080);
  await startTestPod(t, w, server);
  const pool = createHbonePool({ clock: createSystemClock() });
  t.after(() => {
    pool.destroy();
  });
  const tunnel = await pool.connect(
    { srcIdentity: client.spiffeId, dstIdentity: server.spiffeId, dstAddr: `${w.podIp}:15008` },
    client,
    `${w.podIp}:8080`,
  );
  tunnel.stream.destroy();
  assert.equal(pool.stats().connections, 1);
  const change = { becameUnhealthy: [], removed: [entryOf(w)] };
  assert.deepEqual(applyDrainStrategy('evict-on-removal', change, { podsByUid: new Map(), pool }), {
    goaways: 0,
    evicted: 1,
  });
  assert.equal(pool.stats().connections, 0);
});

test('strategy names are validated', () => {
  assert.equal(parseDrainStrategy(undefined), 'none');
  assert.throws(
    () => parseDrainStrategy('sometimes'),
    /one of none, goaway-on-shutdown-start, drain-on-cni-del, evict-on-removal, goaway-on-unhealthy, got "sometimes"/,
  );
});
