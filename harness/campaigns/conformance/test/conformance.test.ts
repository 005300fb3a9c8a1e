import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { probeConnects } from '../connect-probe.ts';
import { compareConnects, compareDrains } from '../conformance-rows.ts';
import { probeDrain } from '../drain-probe.ts';
import type { DrainObservation } from '../drain-probe.ts';
import { startModelTarget } from '../model-target.ts';
import { localXdsConfig, realZtunnelFromEnv, realZtunnelHere, startRealTarget } from '../real-target.ts';

const DEADLINE_MS = 1000;

const whyNot = (r: ReturnType<typeof realZtunnelFromEnv>): string => (typeof r === 'string' ? r : 'usable');

test("the probe sees our ztunnel's drain as upstream 1.28 defines it (architecture.md, Lifecycle)", async () => {
  const target = await startModelTarget({ podNet: 106, deadlineMs: DEADLINE_MS });
  let seen: DrainObservation;
  try {
    seen = await probeDrain(target);
  } finally {
    await target.close();
  }
  const goaway = seen.goaway;
  assert.ok(goaway, 'a GOAWAY at SIGTERM');
  assert.equal(goaway.code, 0, 'NO_ERROR');
  assert.ok(goaway.afterMs < 500, `soon after SIGTERM (${String(goaway.afterMs)} ms)`);
  assert.deepEqual(
    seen.settings,
    {
      initialWindowSize: 4194304,
      maxFrameSize: 1048576,
      maxConcurrentStreams: 200,
      maxHeaderListSize: 65536,
      connectionWindow: 16777216,
    },
    "istio/ztunnel's HBONE server settings (src/config.rs defaults), not Node's",
  );
  assert.deepEqual(
    seen.goaways.map(([, last]) => last),
    [2 ** 31 - 1, 3],
    "the h2 crate's graceful shutdown: 2^31-1, then after a PING the last stream served",
  );
  assert.equal(seen.idleTunnelAfterSigterm, 'answered 418', 'an open tunnel keeps working after the GOAWAY');
  assert.equal(seen.newConnectionAfterSigterm, 'refused', 'the listener is closed at SIGTERM');
  assert.equal(seen.connectionEnd.how, 'FIN', 'dropped at the deadline with a FIN (no SO_LINGER)');
  assert.ok(
    Math.abs(seen.connectionEnd.afterMs - DEADLINE_MS) < 400,
    `ended at the deadline (+${String(seen.connectionEnd.afterMs)} ms)`,
  );
  assert.match(seen.inFlightRequest, /^failed/, 'the request outlasting the deadline is cut');
  assert.deepEqual(seen.logErrors, ['connection closed due to connection drain']);
});

test("our ztunnel answers a rollout's CONNECTs as istio/ztunnel 1.28 does (src/proxy/inbound.rs)", async () => {
  const target = await startModelTarget({ podNet: 106, deadlineMs: DEADLINE_MS });
  try {
    assert.deepEqual(await probeConnects(target), {
      app: '200',
      closedPort: '503, error="connection failed: Connection refused (os error 111)"',
      foreignAddress: '400, error="ip mismatch: POD != OTHER"',
    });
  } finally {
    target.terminate();
    await target.settled();
    await target.close();
  }
});

test('compareDrains marks a different close kind or a late close as a difference', () => {
  const base: DrainObservation = {
    settings: {
      initialWindowSize: 4194304,
      maxFrameSize: 1048576,
      maxConcurrentStreams: 200,
      maxHeaderListSize: 65536,
      connectionWindow: 16777216,
    },
    goaway: { afterMs: 1, code: 0, lastStreamId: 2 ** 31 - 1 },
    goaways: [
      [0, 2 ** 31 - 1],
      [0, 3],
    ],
    idleTunnelAfterSigterm: 'answered 418',
    newConnectionAfterSigterm: 'refused',
    connectionEnd: { how: 'FIN', afterMs: 3000 },
    inFlightRequest: 'failed: tunnel closed before a response',
    logErrors: ['connection closed due to connection drain'],
  };
  assert.ok(compareDrains(base, base).every((r) => r.same));
  const rst = compareDrains(base, { ...base, connectionEnd: { how: 'RST', afterMs: 3000 } });
  assert.deepEqual(
    rst.filter((r) => !r.same).map((r) => r.what),
    ['HBONE connection ends'],
  );
  const late = compareDrains(base, { ...base, connectionEnd: { how: 'FIN', afterMs: 4000 } });
  assert.deepEqual(
    late.filter((r) => !r.same).map((r) => r.what),
    ['HBONE connection ends'],
  );
  const otherLine = compareDrains(base, {
    ...base,
    logErrors: ['while closing connection: receive: io error: stream closed because of a broken pipe'],
  });
  assert.ok(
    otherLine.every((r) => r.same),
    "upstream's racing line is its own, not a difference",
  );
  const unlogged = compareDrains({ ...base, logErrors: [] }, base);
  assert.deepEqual(
    unlogged.filter((r) => !r.same).map((r) => r.what),
    ['access log error'],
  );
  const nodeDefaults = compareDrains(base, {
    ...base,
    settings: { ...base.settings, initialWindowSize: 65535, maxConcurrentStreams: 4294967295 },
  });
  assert.deepEqual(
    nodeDefaults.filter((r) => !r.same).map((r) => r.what),
    ['HTTP/2 settings (stream/conn window)'],
  );
  const noGoaway = compareDrains(base, { ...base, goaway: null, goaways: [] });
  assert.deepEqual(
    noGoaway.filter((r) => !r.same).map((r) => r.what),
    ['GOAWAY at SIGTERM', 'GOAWAYs (last stream ids)'],
  );
});

test("the static workload config names the pod's address and trust domain (LocalConfig)", () => {
  const config = parse(localXdsConfig({ name: 'httpbin-real', ip: '10.200.1.2' })) as {
    workloads: { workloadIps: string[]; trustDomain: string; protocol: string; uid: string }[];
  };
  const [workload] = config.workloads;
  assert.ok(workload);
  assert.deepEqual(workload.workloadIps, ['10.200.1.2']);
  assert.equal(workload.trustDomain, 'cluster.local');
  assert.equal(workload.protocol, 'HBONE');
  assert.equal(workload.uid, 'cluster1//v1/Pod/default/httpbin-real');
});

test('the real binary is asked for by name, with what it needs', () => {
  assert.match(
    whyNot(realZtunnelFromEnv({})),
    /needs ZTUNNEL_BINARY .*--features testing.*ZTUNNEL_TEST_ROOT/,
  );
  assert.match(
    whyNot(realZtunnelFromEnv({ ZTUNNEL_BINARY: '/nonexistent/ztunnel', ZTUNNEL_TEST_ROOT: '/tmp' })),
    /ZTUNNEL_BINARY \/nonexistent\/ztunnel does not exist/,
  );
  assert.match(
    whyNot(realZtunnelFromEnv({ ZTUNNEL_BINARY: process.execPath, ZTUNNEL_TEST_ROOT: '/nonexistent' })),
    /ZTUNNEL_TEST_ROOT \/nonexistent has no root-cert.pem/,
  );
});

const real = await realZtunnelHere(process.env);
const realSkip = typeof real === 'string' ? real : false;

/** The CONNECT answers, then the drain, of one target; closed at the end. */
async function observe(target: Awaited<ReturnType<typeof startModelTarget>>) {
  try {
    const connects = await probeConnects(target);
    return { connects, drain: await probeDrain(target) };
  } finally {
    await target.close();
  }
}

test('istio/ztunnel answers and drains as our model does, row by row', { skip: realSkip }, async () => {
  if (typeof real === 'string') return;
  const ours = await observe(await startModelTarget({ podNet: 108, deadlineMs: DEADLINE_MS }));
  const upstream = await observe(await startRealTarget({ real, deadlineMs: DEADLINE_MS }));
  const differ = [
    ...compareConnects(ours.connects, upstream.connects),
    ...compareDrains(ours.drain, upstream.drain),
  ].filter((r) => !r.same);
  assert.deepEqual(differ, [], 'every row the same');
});
