// istio/ztunnel's own binary in shared (in-pod) mode, driven by our ZDS node agent (mesh/zds) as
// istio-cni drives it (issue 34; docs/design/istio-ztunnel-shared-mode.md). Checked against the
// binary: the hello, the snapshot's AddWorkload (the pod's netns fd) and SnapshotSent acked,
// readiness after the snapshot, the in-pod listeners bound inside the pod's namespace (read with
// ss, by connecting, and by an HBONE CONNECT to the pod's app), DelWorkload acked and the listeners
// gone; the upgrade: a second instance gets its own snapshot and binds beside the first
// (SO_REUSEPORT: src/inpod/config.rs), SIGTERM makes the first drain and leave ZDS
// (src/inpod/protocol.rs), and deletes then reach only the second; a proxy that cannot start is a
// nack its caller sees, retried by ztunnel (src/inpod/workloadmanager.rs); and a restarted node
// agent's snapshot keeps, or removes, what ztunnel serves (src/inpod/statemanager.rs reconcile).
// Needs ZTUNNEL_BINARY (built with --features testing, for FAKE_CA), ZTUNNEL_TEST_ROOT, root and Go.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { keepStreamsAfterGoaway, openTunnel } from '../../../mesh/hbone/index.ts';
import type { ZdsPod } from '../../../mesh/zds/index.ts';
import {
  accepts,
  createSharedNode,
  hboneSession,
  INPOD_PORTS,
  listeners,
  portsOf,
  runIn,
  sharedZtunnelHere,
  startApp,
  throughHbone,
  waitFor,
} from './shared-ztunnel-fixture.ts';
import type { SharedZtunnel } from './shared-ztunnel-fixture.ts';

const real = await sharedZtunnelHere();
const skip = typeof real === 'string' ? real : false;
const SNAPSHOT_ACKED = ['connected', 'hello', 'snapshot-sent'];

const listening = async (netnsPath: string, z: SharedZtunnel): Promise<boolean> =>
  z.isAlive() && (await portsOf(netnsPath, z.pid)).length === INPOD_PORTS.length;

test(
  "istio/ztunnel in shared mode: our node agent's snapshot, add and delete, then an upgrade",
  { skip, timeout: 120_000 },
  async (t) => {
    assert.ok(typeof real !== 'string');
    const node = await createSharedNode(t, real);
    const { pod, zdsPod } = node;
    const { agent, events, kinds } = await node.startAgent();

    // The first instance: hello, the one-pod snapshot (AddWorkload with the pod's fd), SnapshotSent.
    const a = await node.startZtunnel('ztunnel-a');
    await waitFor('ztunnel-a acked its snapshot', () => a.isAlive() && kinds(1).includes('snapshot-sent'));
    assert.deepEqual(kinds(1), SNAPSHOT_ACKED, 'no nack');
    assert.deepEqual(
      events.filter((e) => e.kind === 'hello' || e.kind === 'snapshot-sent'),
      [
        { kind: 'hello', conn: 1, version: 1 },
        { kind: 'snapshot-sent', conn: 1, pods: 1 },
      ],
    );
    await waitFor('ztunnel-a ready (:15021/healthz/ready)', () => a.isAlive() && a.isReady());
    await waitFor('ztunnel-a listening on 15008, 15006, 15001 in the pod namespace', () =>
      listening(pod.path, a),
    );
    assert.deepEqual(await portsOf(a.ns.path, a.pid), [], 'none in its own namespace');
    assert.ok(await accepts(pod.ip, 15008), 'the HBONE port accepts on the pod IP');
    await startApp(t, pod);
    assert.equal(await throughHbone(pod.ip, node.gatewayCert), '200 httpbin-1', 'HBONE via ztunnel-a');
    await a.logged(/pod received, starting proxy.*name="httpbin-1" namespace="default"/);
    await a.logged(/received snapshot sent/);

    // DelWorkload: acked, and the listeners go (DrainMode::Immediate).
    await agent.podDeleted(zdsPod.uid);
    assert.deepEqual(kinds(1), SNAPSHOT_ACKED, 'the delete was not nacked');
    await waitFor('ztunnel-a listeners gone', async () => (await portsOf(pod.path, a.pid)).length === 0);
    assert.equal(await accepts(pod.ip, 15008), false, 'nothing listens on the pod IP');
    await a.logged(/pod delete request, shutting down proxy/);

    // The pod again, as a new pod (AddWorkload to the newest connection): acked, listening again.
    await agent.podAdded(zdsPod);
    await waitFor('ztunnel-a listening again', () => listening(pod.path, a));

    // The upgrade: a second instance connects and gets its own snapshot with a fresh fd.
    const b = await node.startZtunnel('ztunnel-b');
    await waitFor('ztunnel-b acked its snapshot', () => b.isAlive() && kinds(2).includes('snapshot-sent'));
    assert.deepEqual(kinds(2), SNAPSHOT_ACKED, 'no nack');
    assert.equal(agent.connections, 2);
    await waitFor('ztunnel-b ready', () => b.isAlive() && b.isReady());
    await waitFor(
      'both instances listening (SO_REUSEPORT)',
      async () => (await listening(pod.path, b)) && listening(pod.path, a),
    );
    const hbone = (await listeners(pod.path)).filter((l) => l.port === 15008);
    assert.deepEqual(hbone.flatMap((l) => l.pids).sort(), [a.pid, b.pid].sort(), 'two sockets on :15008');

    // SIGTERM on the old one: it drains, leaves ZDS (the agent drops it), its listeners close.
    const aExited = once(a.child, 'exit');
    a.child.kill('SIGTERM');
    await waitFor('ztunnel-a leaves ZDS', () => kinds(1).includes('disconnected'));
    await aExited;
    await a.logged(/received signal SIGTERM, starting shutdown/);
    await a.logged(/workload proxy manager: drain requested/);
    assert.equal(agent.connections, 1);
    assert.deepEqual(
      (await listeners(pod.path)).filter((l) => l.port === 15008).flatMap((l) => l.pids),
      [b.pid],
      'only the new instance listens',
    );
    assert.equal(await throughHbone(pod.ip, node.gatewayCert), '200 httpbin-1', 'HBONE via ztunnel-b');

    // A delete now reaches the new instance only; its listeners go.
    await agent.podDeleted(zdsPod.uid);
    await waitFor('ztunnel-b listeners gone', async () => (await portsOf(pod.path, b.pid)).length === 0);
    assert.deepEqual(kinds(2), SNAPSHOT_ACKED, 'no nack');
    t.diagnostic(a.zdsLog());
    t.diagnostic(b.zdsLog());
  },
);

test(
  "istio/ztunnel in shared mode: a proxy that cannot start is a nack podAdded's caller sees, then retried",
  { skip, timeout: 60_000 },
  async (t) => {
    assert.ok(typeof real !== 'string');
    const node = await createSharedNode(t, real);
    const { agent, events, kinds } = await node.startAgent();
    const a = await node.startZtunnel('ztunnel-a');
    await waitFor('ztunnel-a acked its snapshot', () => a.isAlive() && kinds(1).includes('snapshot-sent'));

    // Something in the new pod's namespace holds :15008 without SO_REUSEPORT: ztunnel cannot bind.
    const other = await node.world.addPod(1, 'httpbin-2');
    const blocker = runIn(
      t,
      other,
      [
        process.execPath,
        '-e',
        "require('node:net').createServer().listen(15008, '0.0.0.0', () => console.log('listening'))",
      ],
      {},
    );
    await waitFor('the blocker listening', () => blocker.log.includes('listening'));
    const pod2: ZdsPod = {
      uid: 'uid-httpbin-2',
      workloadInfo: { name: 'httpbin-2', namespace: 'default', serviceAccount: 'httpbin' },
      netnsPath: other.path,
    };
    await assert.rejects(
      agent.podAdded(pod2),
      /ztunnel refused pod uid-httpbin-2: failure to start proxy.*Address already in use/,
    );
    const nack = events.find((e) => e.kind === 'nack');
    assert.deepEqual(nack && { ...nack, error: nack.error.slice(0, 24) }, {
      kind: 'nack',
      conn: 1,
      request: 'add',
      uid: 'uid-httpbin-2',
      error: 'failure to start proxy :',
    });
    await a.logged(/scheduling retry/);
    // 1.28.1 turns not-ready only when a connection ends or a snapshot is pending, not for a pod
    // that failed after the snapshot (workloadmanager.rs: check_ready after an ack, or a retry
    // that left nothing pending).
    const stillReady = await a.readiness();
    assert.ok(stillReady.startsWith('200 '), `still ready with a pending pod: ${stillReady}`);

    // The port is freed: ztunnel's retry (every 5 s) starts the proxy without a new message.
    const blockerExited = once(blocker.child, 'exit');
    blocker.child.kill('SIGKILL');
    await blockerExited;
    await waitFor('ztunnel-a retried and listens in httpbin-2', () => listening(other.path, a), 12_000);
    await a.logged(/retrying workload/);
    await waitFor('ztunnel-a ready again', () => a.isReady());
    t.diagnostic(a.zdsLog());
  },
);

test(
  "istio/ztunnel in shared mode: a restarted node agent's snapshot keeps the proxy (add, keep) or removes it",
  { skip, timeout: 60_000 },
  async (t) => {
    assert.ok(typeof real !== 'string');
    const node = await createSharedNode(t, real);
    const { pod, zdsPod, pods } = node;
    const first = await node.startAgent();
    const a = await node.startZtunnel('ztunnel-a');
    await waitFor(
      'ztunnel-a acked its snapshot',
      () => a.isAlive() && first.kinds(1).includes('snapshot-sent'),
    );
    await waitFor('ztunnel-a listening', () => listening(pod.path, a));
    /** Its listening sockets in the pod namespace, `port inode` (the DNS proxy's on 15053 too). */
    const sockets = async (): Promise<string[]> =>
      (await listeners(pod.path))
        .filter((l) => l.pids.includes(a.pid))
        .map((l) => `${String(l.port)} ${String(l.ino)}`)
        .sort();
    const before = await sockets();
    for (const port of INPOD_PORTS)
      assert.ok(
        before.some((s) => s.startsWith(`${String(port)} `)),
        before.join(),
      );

    /** The agent restarts with `snapshot`; resolves once ztunnel reconnected and acked it. */
    const restart = async (previous: { agent: { close(): Promise<void> } }, snapshot: ZdsPod[]) => {
      await previous.agent.close();
      await waitFor('ztunnel-a not ready without its node agent', async () => !(await a.isReady()));
      pods.splice(0, pods.length, ...snapshot);
      const next = await node.startAgent();
      await waitFor('ztunnel-a reconnected', () => a.isAlive() && next.kinds(1).includes('snapshot-sent'));
      assert.deepEqual(next.kinds(1), SNAPSHOT_ACKED, 'no nack');
      await waitFor('ztunnel-a ready again', () => a.isReady());
      return next;
    };

    // The same namespace again (a fresh fd, the same inode): the proxy is kept, not rebound.
    const second = await restart(first, [zdsPod]);
    assert.deepEqual(await sockets(), before, 'the same listening sockets');
    await a.logged(/process stream ended with eof/);

    // A keep (the agent has no netns for the pod): kept through the reconcile.
    const third = await restart(second, [{ uid: zdsPod.uid, workloadInfo: zdsPod.workloadInfo }]);
    assert.deepEqual(await sockets(), before, 'the same listening sockets');
    await a.logged(/pod keep received/);

    // The pod went while the agent was away: the snapshot lacks it and ztunnel shuts its proxy.
    await restart(third, []);
    await waitFor('ztunnel-a listeners gone', async () => (await sockets()).length === 0);
    // Each time, it found the socket gone and waited, instead of reaching an agent about to exit
    // (mesh/zds/relay/main.go closes its listener before its connections).
    assert.equal(a.logHas(/node agent announcement failed/), false, a.zdsLog());
    assert.ok(a.logHas(/failed to connect to the Istio CNI node agent/), a.zdsLog());
    t.diagnostic(a.zdsLog());
  },
);

test(
  "istio/ztunnel in shared mode: in the upgrade, the old instance's open tunnel lasts until its drain deadline while new ones reach the new instance",
  { skip, timeout: 60_000 },
  async (t) => {
    assert.ok(typeof real !== 'string');
    const node = await createSharedNode(t, real);
    const { pod } = node;
    const { kinds } = await node.startAgent();
    const a = await node.startZtunnel('ztunnel-a');
    await waitFor('ztunnel-a acked its snapshot', () => a.isAlive() && kinds(1).includes('snapshot-sent'));
    await waitFor('ztunnel-a listening', () => listening(pod.path, a));
    await startApp(t, pod);

    // A tunnel opened while only ztunnel-a listens is ztunnel-a's; kept open through its GOAWAY.
    const session = await hboneSession(pod.ip, node.gatewayCert);
    t.after(() => {
      session.destroy();
    });
    keepStreamsAfterGoaway(session, () => 1);
    const tunnel = await openTunnel(session, `${pod.ip}:8080`);
    assert.equal(tunnel.status, 200);
    let received = '';
    tunnel.stream.on('data', (d: Buffer) => (received += d.toString()));
    const streamErrors: string[] = [];
    tunnel.stream.on('error', (err: Error) => streamErrors.push(err.message));
    const tunnelClosed = new Promise<void>((resolve) => tunnel.stream.once('close', resolve));
    await waitFor('the app greets through ztunnel-a', () => received === 'httpbin-1\n');

    const b = await node.startZtunnel('ztunnel-b');
    await waitFor('ztunnel-b acked its snapshot', () => b.isAlive() && kinds(2).includes('snapshot-sent'));
    await waitFor('both listening', async () => (await listening(pod.path, b)) && listening(pod.path, a));

    const sigterm = performance.now();
    const since = (): number => Math.round(performance.now() - sigterm);
    const aExited = once(a.child, 'exit');
    a.child.kill('SIGTERM');
    await waitFor(
      'ztunnel-a closes its listeners',
      async () => (await portsOf(pod.path, a.pid)).length === 0,
    );
    const listenersClosedMs = since();
    assert.equal(a.child.exitCode, null, 'ztunnel-a still runs (draining)');
    tunnel.stream.write('ping\n');
    await waitFor('the echo through the draining ztunnel-a', () => received === 'httpbin-1\nping\n');
    const echoedMs = since();
    assert.equal(
      await throughHbone(pod.ip, node.gatewayCert),
      '200 httpbin-1',
      'a new tunnel, via ztunnel-b',
    );
    await b.logged(/\taccess\tconnection complete.*dst\.workload="httpbin-1"/);

    // At CONNECTION_TERMINATION_DEADLINE (2 s) ztunnel-a cuts the tunnel and exits.
    await tunnelClosed;
    const closedMs = since();
    await aExited;
    const exitedMs = since();
    await a.logged(/drain duration expired with pending connections/);
    t.diagnostic(
      `after SIGTERM: listeners closed by ${String(listenersClosedMs)} ms, echo at ${String(echoedMs)} ms, ` +
        `tunnel closed at ${String(closedMs)} ms (${streamErrors.join('; ') || 'no stream error'}), exited at ${String(exitedMs)} ms`,
    );
    assert.ok(echoedMs < 1_500, `the echo came during the drain (${String(echoedMs)} ms)`);
    assert.ok(
      closedMs >= 1_800 && closedMs < 3_500,
      `the tunnel ended at the deadline (${String(closedMs)} ms)`,
    );
    assert.ok(exitedMs < 4_000, `ztunnel-a exited after the deadline (${String(exitedMs)} ms)`);
    t.diagnostic(a.zdsLog());
  },
);
