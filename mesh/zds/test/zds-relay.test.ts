// ZDS end to end on real SOCK_SEQPACKET sockets and real network namespaces: our node agent (a
// relay in serve mode) against stand-in ztunnels (relays in connect mode, speaking ZDS as
// istio/ztunnel src/inpod/workloadmanager.rs does: hello first, then an ack per message). Each
// AddWorkload's SCM_RIGHTS fd is checked to be the pod's namespace: the same nsfs inode as the
// namespace's holder process has (/proc/<pid>/ns/net, read with stat and with readlink), which is
// how ztunnel itself tells namespaces apart (src/inpod/netns.rs NetnsID).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { findOnPath } from '../../../lib/install/index.ts';
import { podNamespace } from './pod-namespace.ts';
import { ensureZdsRelay } from '../relay-binary.ts';
import { decodeZdsRequest, encodeZdsAck, encodeZdsHello } from '../zds-messages.ts';
import type { ZdsRequest } from '../zds-messages.ts';
import { startZdsNodeAgent } from '../zds-node-agent.ts';
import type { ZdsAgentEvent, ZdsPod } from '../zds-node-agent.ts';
import { startZdsRelay } from '../zds-relay.ts';
import type { ZdsReceivedFd, ZdsRelayConnection } from '../zds-relay.ts';

const WAIT_MS = 5_000;

async function unavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const tool of ['go', 'unshare', 'setpriv'])
    if (!(await findOnPath(tool, process.env))) return `needs ${tool} on PATH`;
  return undefined;
}
const skip = await unavailable();

/** A stand-in ztunnel: connects, says hello; `next` reads one request, `ack` answers it. */
async function fakeZtunnel(t: TestContext, binary: string, socketPath: string) {
  const relay = await startZdsRelay({ binary, mode: 'connect', socketPath });
  t.after(() => relay.destroy());
  const conn: ZdsRelayConnection = await relay.accept(WAIT_MS);
  await conn.send(encodeZdsHello());
  return {
    conn,
    relay,
    async next(): Promise<{ request: ZdsRequest; fds: ZdsReceivedFd[] }> {
      const datagram = await conn.receive(WAIT_MS);
      assert.equal(datagram.truncated, false);
      return { request: decodeZdsRequest(datagram.data), fds: datagram.fds };
    },
    ack: (error = '') => conn.send(encodeZdsAck(error)),
  };
}

const info = (name: string) => ({ name, namespace: 'default', serviceAccount: 'httpbin' });

test(
  'ZDS: snapshot, add to the newest ztunnel with the pod netns fd, delete to all, nack, disconnect',
  { skip },
  async (t) => {
    const binary = await ensureZdsRelay();
    const dir = mkdtempSync(join(tmpdir(), 'zds-'));
    t.after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const socketPath = join(dir, 'ztunnel.sock');
    const [a, b, c] = [await podNamespace(t), await podNamespace(t), await podNamespace(t)];
    assert.equal(new Set([a.ino, b.ino, c.ino]).size, 3);

    const pods: ZdsPod[] = [{ uid: 'uid-a', workloadInfo: info('a'), netnsPath: a.path }];
    const events: ZdsAgentEvent[] = [];
    const server = await startZdsRelay({ binary, mode: 'serve', socketPath });
    const agent = startZdsNodeAgent({ relay: server, snapshot: () => pods, onEvent: (e) => events.push(e) });
    t.after(() => agent.close());

    await assert.rejects(agent.podAdded(pods[0] as ZdsPod), /no ztunnel connection/);

    // The first ztunnel: the snapshot is pod a, with a's namespace as the fd, then SnapshotSent.
    const z1 = await fakeZtunnel(t, binary, socketPath);
    const first = await z1.next();
    assert.deepEqual(first.request, { kind: 'add', uid: 'uid-a', workloadInfo: info('a') });
    assert.deepEqual(
      first.fds.map((f) => ({ ino: f.ino, nsfs: f.nsfs })),
      [{ ino: a.ino, nsfs: true }],
    );
    await z1.ack();
    const snap = await z1.next();
    assert.deepEqual(snap, { request: { kind: 'snapshot-sent' }, fds: [] });
    await z1.ack();

    // A new pod goes to the only ztunnel, with its own namespace.
    pods.push({ uid: 'uid-b', workloadInfo: info('b'), netnsPath: b.path });
    const addedB = agent.podAdded(pods[1] as ZdsPod);
    const toZ1 = await z1.next();
    assert.equal(toZ1.request.kind, 'add');
    assert.deepEqual(
      toZ1.fds.map((f) => f.ino),
      [b.ino],
    );
    await z1.ack();
    await addedB;

    // The upgrade: a second ztunnel connects and gets every pod; a pod without a netns is a keep.
    pods.push({ uid: 'uid-k', workloadInfo: info('k') });
    const z2 = await fakeZtunnel(t, binary, socketPath);
    const snapshot: { request: ZdsRequest; ino: number | undefined }[] = [];
    for (let i = 0; i < 4; i++) {
      const m = await z2.next();
      snapshot.push({ request: m.request, ino: m.fds[0]?.ino });
      await z2.ack();
    }
    assert.deepEqual(snapshot, [
      { request: { kind: 'add', uid: 'uid-a', workloadInfo: info('a') }, ino: a.ino },
      { request: { kind: 'add', uid: 'uid-b', workloadInfo: info('b') }, ino: b.ino },
      { request: { kind: 'keep', uid: 'uid-k' }, ino: undefined },
      { request: { kind: 'snapshot-sent' }, ino: undefined },
    ]);
    assert.equal(agent.connections, 2);

    // Adds go to the newest only: z2 refuses c (a nack), which the caller sees; z1 hears nothing.
    const refusedC = assert.rejects(
      agent.podAdded({ uid: 'uid-c', workloadInfo: info('c'), netnsPath: c.path }),
      /ztunnel refused pod uid-c: failure to start proxy/,
    );
    const toZ2 = await z2.next();
    assert.deepEqual(
      toZ2.fds.map((f) => f.ino),
      [c.ino],
    );
    await z2.ack('failure to start proxy');
    await refusedC;

    // A delete goes to both.
    const deleted = agent.podDeleted('uid-a');
    for (const z of [z1, z2]) {
      assert.deepEqual(await z.next(), { request: { kind: 'del', uid: 'uid-a' }, fds: [] });
      await z.ack();
    }
    await deleted;

    // The old ztunnel goes away (its drain ended): deletes now reach only the new one.
    await z1.relay.close();
    const until = Date.now() + WAIT_MS;
    const connected = (): number => agent.connections; // read anew, not narrowed by the assert above
    while (connected() !== 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(connected(), 1);
    const deletedB = agent.podDeleted('uid-b');
    assert.deepEqual((await z2.next()).request, { kind: 'del', uid: 'uid-b' });
    await z2.ack();
    await deletedB;

    assert.deepEqual(
      events.map((e) => e.kind),
      ['connected', 'hello', 'snapshot-sent', 'connected', 'hello', 'snapshot-sent', 'nack', 'disconnected'],
    );
  },
);

test(
  'zds-relay: a namespace path that cannot be opened fails that send, and the connection goes on',
  { skip },
  async (t) => {
    const binary = await ensureZdsRelay();
    const dir = mkdtempSync(join(tmpdir(), 'zds-'));
    t.after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const socketPath = join(dir, 'ztunnel.sock');
    const server = await startZdsRelay({ binary, mode: 'serve', socketPath });
    t.after(() => server.close());
    const client = await startZdsRelay({ binary, mode: 'connect', socketPath });
    t.after(() => client.close());
    const [serverSide, clientSide] = [await server.accept(WAIT_MS), await client.accept(WAIT_MS)];

    await assert.rejects(
      serverSide.send(new Uint8Array([1]), { netnsPath: join(dir, 'no-such-netns') }),
      /send failed: open .*no-such-netns: no such file or directory/,
    );
    // Datagram boundaries hold: two sends are two receives, a zero-byte one included? No: a zero-byte
    // SEQPACKET read is EOF to both upstreams, so ZDS never sends one; two non-empty ones stay apart.
    await serverSide.send(Buffer.from('0801', 'hex'));
    await serverSide.send(Buffer.from('1a00', 'hex'));
    assert.equal((await clientSide.receive(WAIT_MS)).data.toString('hex'), '0801');
    assert.equal((await clientSide.receive(WAIT_MS)).data.toString('hex'), '1a00');

    // The node agent closes: the ztunnel side reads EOF.
    serverSide.close();
    await clientSide.closed;
    await assert.rejects(clientSide.receive(WAIT_MS), /connection 1 closed/);
  },
);
