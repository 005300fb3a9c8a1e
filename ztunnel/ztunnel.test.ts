import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createManualClock } from '../lib/index.ts';
import { createCertificateAuthority } from '../mesh/pki/index.ts';
import { captureLog, holdConnection, startEchoApp, testWorkload } from './inbound/test/fixtures.ts';
import { createZtunnel } from './ztunnel.ts';

const ca = await createCertificateAuthority();

test("DelWorkload closes that pod's listeners and drops its connections at once (an idle one gets a FIN); others untouched", async (t) => {
  const { log, metrics } = captureLog();
  const clock = createManualClock();
  const zt = createZtunnel({ issueCert: (id) => ca.issue(id), log, metrics, clock, drainDeadlineMs: 25_000 });
  const [a, b] = [testWorkload(93, 1), testWorkload(93, 2)];
  for (const w of [a, b]) {
    await startEchoApp(t, w.appIp, 8080);
    await zt.addWorkload(w);
  }
  t.after(() => {
    zt.delWorkload(b.uid);
  });
  assert.equal(zt.isReady(), false, 'not ready before the snapshot');
  zt.markSnapshotSent();
  assert.equal(zt.isReady(), true);
  const onA = await holdConnection(a.podIp, 8080);
  const onB = await holdConnection(b.podIp, 8080);
  assert.deepEqual(zt.delWorkload(a.uid), { connections: 1, inFlight: 0 });
  // Upstream drops the connection's task: close() with nothing unread is a FIN, not a reset.
  assert.equal((await onA.closed).how, 'FIN');
  const refused = connect({ host: a.podIp, port: 8080 });
  const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
  assert.equal(err.code, 'ECONNREFUSED', "the pod's listeners are gone");
  const still = await Promise.race([
    onB.closed,
    new Promise((r) =>
      setTimeout(() => {
        r('open');
      }, 50),
    ),
  ]);
  assert.equal(still, 'open', 'the other pod keeps its connection');
});

for (const readCloseKinds of [false, true])
  test(`drain waits for the deadline on the run clock, then forces what is left (close kinds ${readCloseKinds ? 'read' : 'not read'})`, async (t) => {
    const { log, lines, metrics } = captureLog();
    const clock = createManualClock();
    const zt = createZtunnel({
      issueCert: (id) => ca.issue(id),
      log,
      metrics,
      clock,
      drainDeadlineMs: 25_000,
      readCloseKinds,
    });
    const w = testWorkload(93, 3);
    await startEchoApp(t, w.appIp, 8080);
    await zt.addWorkload(w);
    const held = await holdConnection(w.podIp, 8080);
    const drained = zt.drain();
    assert.equal(zt.isReady(), false, 'readiness fails as soon as the drain starts');
    await clock.advance(24_999);
    const early = await Promise.race([
      held.closed,
      new Promise((r) =>
        setTimeout(() => {
          r('open');
        }, 30),
      ),
    ]);
    assert.equal(early, 'open', 'kept until the deadline');
    await clock.advance(1);
    assert.equal((await held.closed).how, 'FIN', 'dropped as upstream does: a FIN when nothing is unread');
    const result = await drained;
    assert.equal(result.forced, 1);
    assert.equal(result.inFlight, 0, 'its last request was answered');
    const deadline = lines.find((l) => /drain deadline reached connections=1 in_flight=0/.test(l)) ?? '';
    assert.ok(deadline, lines.join('\n'));
    // The socket table is read only when asked (it costs CPU at the deadline it explains).
    assert.equal(
      /on_unread=0 in_flight_elsewhere=0 transport_unknown=0 queue_read_ms=\d+/.test(deadline),
      readCloseKinds,
      deadline,
    );
    assert.ok(lines.some((l) => /error="connection closed due to connection drain"/.test(l)));
  });
