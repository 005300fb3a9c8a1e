// Our ztunnel's ZDS client against our ZDS node agent (istio-cni's side, served for istio/ztunnel's
// binary) on a real SOCK_SEQPACKET socket, with real network namespaces: the namespace an add
// carries is held by the relay and named by /proc/<relay>/fd/<n> (the same nsfs inode as the pod's),
// the pod's address read inside it, the fd released at the del and after a refusal.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../lib/index.ts';
import { waitUntil } from '../../lib/test/wait-until.ts';
import { findOnPath } from '../../lib/install/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { ensureZdsRelay, startZdsNodeAgent, startZdsRelay } from '../../mesh/zds/index.ts';
import type { ZdsPod } from '../../mesh/zds/index.ts';
import { podNamespace } from '../../mesh/zds/test/pod-namespace.ts';
import { connectZdsAgent } from './zds-client.ts';

async function unavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const tool of ['go', 'unshare', 'setpriv', 'nsenter', 'ip'])
    if (!(await findOnPath(tool, process.env))) return `needs ${tool} on PATH`;
  return undefined;
}
const skip = await unavailable();

const info = (name: string) => ({ name, namespace: 'default', serviceAccount: 'httpbin' });

test(
  'ZDS client: the add binds in the namespace the fd names, at the address read there; del and refusal release the fd',
  { skip, timeout: 30_000 },
  async (t) => {
    const binary = await ensureZdsRelay();
    const dir = mkdtempSync(join(tmpdir(), 'zds-client-'));
    t.after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const socketPath = join(dir, 'ztunnel.sock');
    const [a, b] = [await podNamespace(t, '10.77.0.5'), await podNamespace(t, '10.77.0.6')];
    const pods: ZdsPod[] = [{ uid: 'uid-a', workloadInfo: info('a'), netnsPath: a.path }];
    const server = await startZdsRelay({ binary, mode: 'serve', socketPath });
    const agent = startZdsNodeAgent({ relay: server, snapshot: () => pods });
    t.after(() => agent.close());

    const added: { workload: LocalWorkload; ino: number }[] = [];
    const deleted: string[] = [];
    let snapshotSent = false;
    let refuse = false;
    const client = await connectZdsAgent({
      path: socketPath,
      relayBinary: binary,
      instance: 'ztunnel-test',
      log: createLogger({ component: 'ztunnel', level: 'error', write: () => undefined }),
      portsOf: (namespace, name) => (namespace === 'default' && name === 'a' ? [8080] : []),
      ztunnel: {
        addWorkload: (workload) => {
          if (refuse) return Promise.reject(new Error('no listeners today'));
          // What ztunnel's helpers will open: the path must lead to the pod's namespace.
          added.push({ workload, ino: statSync(workload.netns ?? '').ino });
          return Promise.resolve();
        },
        delWorkload: (uid) => {
          deleted.push(uid);
          return { connections: 0, inFlight: 0 };
        },
        markSnapshotSent: () => {
          snapshotSent = true;
        },
        markSnapshotPending: () => {
          snapshotSent = false;
        },
      },
    });
    t.after(() => client.destroy());
    await waitUntil('SnapshotSent applied', () => snapshotSent, 10_000);
    const [first] = added;
    assert.ok(first);
    assert.equal(first.ino, a.ino, "the relay's fd is the pod's namespace");
    assert.match(first.workload.netns ?? '', /^\/proc\/\d+\/fd\/\d+$/);
    assert.deepEqual(
      { ...first.workload, netns: '' },
      {
        uid: 'uid-a',
        name: 'a',
        namespace: 'default',
        serviceAccount: 'httpbin',
        podIp: '10.77.0.5',
        appIp: '10.77.0.5',
        ports: [8080],
        netns: '',
        inpodCapture: true,
      },
    );
    assert.deepEqual(client.pods(), ['uid-a']);

    // The del: the pod goes from ztunnel, and the relay lets go of its namespace.
    await agent.podDeleted('uid-a');
    assert.deepEqual(deleted, ['uid-a']);
    const heldPath = first.workload.netns ?? '';
    await waitUntil(`${heldPath} closed after the del`, () => !existsSync(heldPath), 5_000);

    // A refusal is a nack with ztunnel's reason, and its fd is not kept either.
    refuse = true;
    await assert.rejects(
      agent.podAdded({ uid: 'uid-b', workloadInfo: info('b'), netnsPath: b.path }),
      /ztunnel refused pod uid-b: no listeners today/,
    );
    assert.deepEqual(client.pods(), []);
  },
);

test(
  'ZDS client: istio-cni restarted: not ready until the new snapshot, then the pods it did not name go; the old relay holds what stays',
  { skip, timeout: 30_000 },
  async (t) => {
    const binary = await ensureZdsRelay();
    const dir = mkdtempSync(join(tmpdir(), 'zds-reconnect-'));
    t.after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const socketPath = join(dir, 'ztunnel.sock');
    const [a, b, c] = [
      await podNamespace(t, '10.78.0.5'),
      await podNamespace(t, '10.78.0.6'),
      await podNamespace(t, '10.78.0.7'),
    ];
    const podA: ZdsPod = { uid: 'uid-a', workloadInfo: info('a'), netnsPath: a.path };
    const firstAgent = startZdsNodeAgent({
      relay: await startZdsRelay({ binary, mode: 'serve', socketPath }),
      snapshot: () => [podA, { uid: 'uid-b', workloadInfo: info('b'), netnsPath: b.path }],
    });
    t.after(() => firstAgent.close());
    const netnsOf = new Map<string, string>();
    const deleted: string[] = [];
    const readiness: boolean[] = [];
    const client = await connectZdsAgent({
      path: socketPath,
      relayBinary: binary,
      instance: 'ztunnel-test',
      log: createLogger({ component: 'ztunnel', level: 'error', write: () => undefined }),
      ztunnel: {
        addWorkload: (workload) => {
          netnsOf.set(workload.uid, workload.netns ?? '');
          return Promise.resolve();
        },
        delWorkload: (uid) => {
          deleted.push(uid);
          return { connections: 0, inFlight: 0 };
        },
        markSnapshotSent: () => readiness.push(true),
        markSnapshotPending: () => readiness.push(false),
      },
    });
    t.after(() => client.destroy());
    await waitUntil('the first snapshot', () => readiness.length === 1, 10_000);
    assert.deepEqual(client.pods().sort(), ['uid-a', 'uid-b']);
    const [heldA, heldB] = [netnsOf.get('uid-a') ?? '', netnsOf.get('uid-b') ?? ''];

    // istio-cni restarts; meanwhile b is deleted and c created.
    await firstAgent.close();
    await waitUntil('ztunnel marked not ready', () => readiness.length === 2, 5_000);
    const secondAgent = startZdsNodeAgent({
      relay: await startZdsRelay({ binary, mode: 'serve', socketPath }),
      snapshot: () => [podA, { uid: 'uid-c', workloadInfo: info('c'), netnsPath: c.path }],
    });
    t.after(() => secondAgent.close());
    await waitUntil('the new snapshot', () => readiness.length === 3, 10_000);

    assert.deepEqual(
      readiness,
      [true, false, true],
      'ready, not ready while away, ready after the new snapshot',
    );
    assert.equal(client.connections(), 2);
    assert.deepEqual(client.pods().sort(), ['uid-a', 'uid-c']);
    assert.deepEqual(deleted, ['uid-b'], 'the pod deleted while away is removed at SnapshotSent');
    assert.equal(netnsOf.get('uid-a'), heldA, 'a is not re-added: served in the namespace first held');
    assert.equal(statSync(heldA).ino, a.ino, "the old relay still holds a's namespace");
    await waitUntil(`${heldB} closed`, () => !existsSync(heldB), 5_000);
    assert.equal(statSync(netnsOf.get('uid-c') ?? '').ino, c.ino, "c's namespace held by the new relay");
  },
);
