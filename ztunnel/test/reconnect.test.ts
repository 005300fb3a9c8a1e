// A real ztunnel process whose node agent, then whose control plane, goes away under load and comes
// back with a different view: istio/ztunnel keeps serving from what it holds, reconnects, and takes
// the new view (src/inpod/workloadmanager.rs + statemanager.rs reconcile; src/xds/client.rs resume
// with initial_resource_versions). Before this, ours served its first connection only.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createSystemClock } from '../../lib/index.ts';
import { waitUntil } from '../../lib/test/wait-until.ts';
import { startDiscoveryServer } from '../../mesh/discovery/index.ts';
import type { DiscoverySnapshot, WorkloadEntry } from '../../mesh/discovery/index.ts';
import { startNodeAgentServer } from '../../mesh/node-agent/index.ts';
import { startStandaloneCa } from '../../mesh/pki/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { startEchoApp, testWorkload } from '../inbound/test/fixtures.ts';
import { keepProbing, probe, probeOutbound } from './probes.ts';
import { spawnZtunnel } from './ztunnel-process.ts';

const ON_NODE = { nodeName: 'node-1', isTerminal: false };
const ZTUNNEL_POD = {
  name: 'ztunnel-a',
  namespace: 'istio-system',
  serviceAccount: 'ztunnel',
  uid: 'ztunnel-a',
  ...ON_NODE,
};

/** The CA, the node agent with `pods` (echo apps up), a ztunnel process on them, its snapshot acked. */
async function startNode(t: TestContext, pods: LocalWorkload[], env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'reconnect-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const caServer = await startStandaloneCa({
    dir,
    pods: [...pods.map((p) => ({ ...p, ...ON_NODE })), ZTUNNEL_POD],
  });
  t.after(() => caServer.close());
  const agentPath = join(dir, 'zds.sock');
  const agent = await startNodeAgentServer(agentPath);
  t.after(() => agent.close());
  const apps = new Map<string, Awaited<ReturnType<typeof startEchoApp>>>();
  for (const pod of pods) {
    apps.set(pod.uid, await startEchoApp(t, pod.appIp, 8080));
    await agent.addWorkload(pod);
  }
  const z = spawnZtunnel('ztunnel-a', {
    NODE_NAME: 'node-1',
    NODE_IP: '127.44.0.1',
    ZDS_ADDRESS: agentPath,
    ...(await caServer.credentialsFor(ZTUNNEL_POD)),
    ...env,
  });
  t.after(() => {
    if (!z.exited()) z.child.kill('SIGKILL');
  });
  await agent.whenSnapshotAcked('ztunnel-a');
  /** Ends ztunnel before the servers it holds connections to close (they would wait for it). */
  const stopZtunnel = async (): Promise<void> => {
    z.child.kill('SIGKILL');
    await z.child;
  };
  return { agent, agentPath, apps, z, stopZtunnel };
}

const seen = (lines: string[], re: RegExp): boolean => lines.some((l) => re.test(l));

test(
  "node agent restarted under load: ztunnel's pods stay served, it reconnects and takes the new snapshot",
  { timeout: 60_000 },
  async (t) => {
    const [p1, p2, p3] = [testWorkload(47, 1), testWorkload(47, 2), testWorkload(47, 3)];
    const { agent, agentPath, z, stopZtunnel } = await startNode(t, [p1, p2]);
    await startEchoApp(t, p3.appIp, 8080);
    const load = keepProbing(() => probe(p1.podIp, 8080), { everyMs: 10, forMs: 4000 });
    t.after(() => {
      load.stop();
    });

    await new Promise((r) => setTimeout(r, 500));
    await agent.close(); // istio-cni restarted: ztunnel reads EOF
    await new Promise((r) => setTimeout(r, 300)); // a few failed attempts while it is away
    // While it was away p2 was deleted and p3 created; the new agent knows the node as it is now.
    const next = await startNodeAgentServer(agentPath);
    t.after(() => next.close());
    void next.addWorkload(p1);
    void next.addWorkload(p3);
    let acked = false;
    void next.whenSnapshotAcked('ztunnel-a').then(() => (acked = true));
    await waitUntil(
      'ztunnel reconnected to the restarted node agent and acked its snapshot',
      () => acked,
      20_000,
    );

    assert.equal((await probe(p3.podIp, 8080)).error, undefined, 'the pod created while away is served');
    const toDeleted = await probe(p2.podIp, 8080);
    assert.notEqual(toDeleted.error, undefined, 'the pod deleted while away is no longer served');
    assert.ok(
      seen(z.lines, new RegExp(`pod removed: not in the new snapshot\t.*uid="${p2.uid}"`)),
      z.lines.join('\n'),
    );

    await new Promise((r) => setTimeout(r, Math.max(0, 4100 - 500)));
    load.stop();
    const results = await Promise.all(load.attempts);
    const failed = results.filter((r) => r.error);
    t.diagnostic(
      `${String(results.length)} connections to the pod that stayed, ${String(failed.length)} failed`,
    );
    assert.ok(results.length > 100, `the load ran (${String(results.length)})`);
    assert.deepEqual(failed, [], 'the pod that stayed was served throughout');
    await stopZtunnel();
  },
);

const VIP = '127.49.0.100';
const CP_HOST = '127.49.0.200';
const entry = (w: LocalWorkload, services: string[]): WorkloadEntry => ({
  uid: w.uid,
  name: w.name,
  namespace: w.namespace,
  serviceAccount: w.serviceAccount,
  node: 'node-1',
  podIp: w.podIp,
  status: 'HEALTHY',
  protocol: 'HBONE',
  capacity: 1,
  services,
});
const HTTPBIN = { namespace: 'default', name: 'httpbin', vip: VIP, ports: [{ port: 80, targetPort: 8080 }] };

test(
  'control plane restarted under load: ztunnel routes from what it holds, resubscribes, and takes the removal',
  { timeout: 60_000 },
  async (t) => {
    const [client, s1, s2] = [testWorkload(48, 1), testWorkload(48, 2), testWorkload(48, 3)];
    const clock = createSystemClock();
    const before: DiscoverySnapshot = {
      workloads: [entry(client, []), entry(s1, ['default/httpbin']), entry(s2, [])],
      services: [HTTPBIN],
    };
    // While it was down s1 was deleted and s2 joined the service.
    const after: DiscoverySnapshot = {
      workloads: [entry(client, []), entry(s2, ['default/httpbin'])],
      services: [HTTPBIN],
    };
    const cp = await startDiscoveryServer({ host: CP_HOST, clock });
    t.after(() => cp.close());
    await cp.push(before);
    const { z, apps, stopZtunnel } = await startNode(t, [client, s1, s2], {
      XDS_ADDRESS: `${CP_HOST}:${String(cp.port)}`,
    });
    await waitUntil('ztunnel subscribed', () => cp.subscriberCount() === 1, 5_000);
    assert.equal((await probeOutbound(client.podIp, { ip: VIP, port: 80 })).error, undefined);
    const load = keepProbing(() => probeOutbound(client.podIp, { ip: VIP, port: 80 }), {
      everyMs: 10,
      forMs: 4000,
    });
    t.after(() => {
      load.stop();
    });

    await new Promise((r) => setTimeout(r, 500));
    await cp.close(); // istiod restarted: the stream ends
    await new Promise((r) => setTimeout(r, 300)); // a few failed attempts while it is down
    const next = await startDiscoveryServer({ host: CP_HOST, port: cp.port, clock });
    t.after(() => next.close());
    await next.push(after);
    await waitUntil(
      'ztunnel resubscribed to the restarted control plane',
      () => next.subscriberCount() === 1,
      20_000,
    );
    await waitUntil(
      'the removal of s1 applied',
      () => seen(z.lines, new RegExp(`received response\t.*removes=1 .*workloads="default/${s1.name}"`)),
      5_000,
    );
    load.stop();
    const results = await Promise.all(load.attempts);
    const failed = results.filter((r) => r.error);
    t.diagnostic(`${String(results.length)} connections through the drop, ${String(failed.length)} failed`);
    assert.ok(results.length > 50, `the load ran (${String(results.length)})`);
    assert.deepEqual(failed, [], 'routing from the state held while the control plane was away');

    // s1's app gone too: a connection succeeds only if ztunnel now sends it to s2.
    await new Promise<void>((resolve) => {
      apps.get(s1.uid)?.close(() => {
        resolve();
      });
    });
    const afterResume = keepProbing(() => probeOutbound(client.podIp, { ip: VIP, port: 80 }), {
      everyMs: 20,
      forMs: 1000,
    });
    await new Promise((r) => setTimeout(r, 1100));
    const moved = await Promise.all(afterResume.attempts);
    assert.ok(moved.length > 20);
    assert.deepEqual(
      moved.filter((r) => r.error),
      [],
      'every new connection goes to s2',
    );
    await stopZtunnel();
  },
);
