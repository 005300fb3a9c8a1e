// The upgrade handoff with two real ztunnel processes on the same pod addresses (SO_REUSEPORT):
// under a stream of new connections, start B, wait until it is ready, SIGTERM A.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startNodeAgentServer } from '../../mesh/node-agent/index.ts';
import { startStandaloneCa } from '../../mesh/pki/index.ts';
import { holdConnection, startEchoApp, testWorkload } from '../inbound/test/fixtures.ts';
import { probe } from './probes.ts';
import type { Attempt } from './probes.ts';
import { spawnZtunnel } from './ztunnel-process.ts';

test(
  "upgrade handoff: no new-connection failure after A closes; old connections dropped at A's deadline",
  { timeout: 60_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'handoff-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const pods = [testWorkload(41, 1), testWorkload(41, 2)];
    const onNode = { nodeName: 'node-1', isTerminal: false };
    const ztunnelPod = (name: string) => ({
      name,
      namespace: 'istio-system',
      serviceAccount: 'ztunnel',
      uid: name,
      ...onNode,
    });
    const caServer = await startStandaloneCa({
      dir,
      pods: [...pods.map((p) => ({ ...p, ...onNode })), ztunnelPod('ztunnel-a'), ztunnelPod('ztunnel-b')],
    });
    t.after(() => caServer.close());
    const agent = await startNodeAgentServer(join(dir, 'zds.sock'));
    t.after(() => agent.close());
    for (const pod of pods) {
      await startEchoApp(t, pod.appIp, 8080);
      await agent.addWorkload(pod);
    }
    const drainDeadlineMs = 2000;
    const env = {
      NODE_NAME: 'node-1',
      NODE_IP: '127.43.0.1',
      ZDS_ADDRESS: agent.path,
      CONNECTION_TERMINATION_DEADLINE: `${String(drainDeadlineMs)}ms`,
    };

    const a = spawnZtunnel('ztunnel-a', {
      ...env,
      ...(await caServer.credentialsFor(ztunnelPod('ztunnel-a'))),
    });
    t.after(() => a.child.kill('SIGKILL'));
    await agent.whenSnapshotAcked('ztunnel-a');
    const held = await Promise.all(pods.map((p) => holdConnection(p.podIp, 8080)));

    // New connections throughout: 500/s for 5 s, alternating pods (bounded: 2500 at most).
    const attempts: Promise<Attempt>[] = [];
    const loadStart = performance.now();
    const loader = setInterval(() => {
      if (performance.now() - loadStart > 5000) return;
      for (let i = 0; i < 2; i++) attempts.push(probe(pods[attempts.length % 2]?.podIp ?? '', 8080));
    }, 4);
    t.after(() => {
      clearInterval(loader);
    });

    await new Promise((r) => setTimeout(r, 1000));
    const b = spawnZtunnel('ztunnel-b', {
      ...env,
      ...(await caServer.credentialsFor(ztunnelPod('ztunnel-b'))),
    });
    t.after(() => b.child.kill('SIGKILL'));
    await agent.whenSnapshotAcked('ztunnel-b');
    assert.deepEqual(
      agent.instances(),
      ['ztunnel-a', 'ztunnel-b'],
      'B bound the same pod addresses beside A',
    );

    await new Promise((r) => setTimeout(r, 500));
    const sigtermMs = performance.now();
    a.child.kill('SIGTERM');
    const closedMs = await a.waitForLine(/drain started/);
    const drops = await Promise.all(held.map((h) => h.closed));
    const aExit = await a.child;

    await new Promise((r) => setTimeout(r, Math.max(0, 5200 - (performance.now() - loadStart))));
    clearInterval(loader);
    const results = await Promise.all(attempts);
    b.child.kill('SIGTERM');
    await b.child;

    const after = results.filter((r) => r.startMs > closedMs);
    const failedAfter = after.filter((r) => r.error);
    const before = results.filter((r) => r.startMs <= closedMs);
    const queueResets = before.filter((r) => r.error);
    t.diagnostic(
      `connections: ${String(results.length)} in all; ${String(after.length)} opened after A closed its listeners ` +
        `(${String(failedAfter.length)} failed); ${String(queueResets.length)} of ${String(before.length)} opened before ` +
        `failed [${[...new Set(queueResets.map((r) => r.error))].join(', ')}] - A's accept queue at close ` +
        `(net.ipv4.tcp_migrate_req=0 resets it)`,
    );
    assert.ok(results.length > 1500, `the load ran (${String(results.length)} connections)`);
    assert.ok(after.length > 500, 'plenty of connections after the close');
    assert.deepEqual(failedAfter, [], 'no new connection fails once A has closed: B takes them all');

    for (const drop of drops) {
      const sinceSigtermMs = drop.atMs - sigtermMs;
      // Idle at the deadline: upstream's drop is a close() with nothing unread, a FIN.
      assert.equal(drop.how, 'FIN', 'the long-lived connection is dropped: FIN, nothing was unread');
      assert.ok(
        sinceSigtermMs >= drainDeadlineMs - 50 && sinceSigtermMs < drainDeadlineMs + 1500,
        `dropped ${String(Math.round(sinceSigtermMs))} ms after SIGTERM`,
      );
    }
    assert.equal(aExit.exitCode, 0, 'A exits by itself after its drain');
    assert.ok(
      a.lines.some((l) =>
        /\terror\taccess\tconnection complete\t.*error="connection closed due to connection drain"/.test(l),
      ),
    );
  },
);
