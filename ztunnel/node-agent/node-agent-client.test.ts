// The node agent's pod-termination messages over the real unix socket, applied by ztunnel's client.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../lib/index.ts';
import { startNodeAgentServer } from '../../mesh/node-agent/index.ts';
import type { Ztunnel } from '../ztunnel.ts';
import { connectNodeAgent } from './node-agent-client.ts';

test("a pod's end in the kubelet's order: shutdown-starting, cni-del (awaited to the end of the drain), del with networkGone", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'node-agent-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const server = await startNodeAgentServer(join(dir, 'ztunnel.sock'));
  t.after(() => server.close());
  const calls: string[] = [];
  const drained = Promise.withResolvers<undefined>();
  const ztunnel = {
    addWorkload: () => Promise.resolve(),
    delWorkload: (uid: string, options?: { networkGone?: boolean }) => {
      calls.push(`del ${uid} networkGone=${String(options?.networkGone)}`);
      return { connections: 0, inFlight: 0 };
    },
    onShutdownStarting: (uid: string) => calls.push(`shutdown-starting ${uid}`),
    onCniDel: async (uid: string) => {
      calls.push(`cni-del ${uid} begins`);
      await drained.promise;
      calls.push(`cni-del ${uid} drained`);
    },
    markSnapshotSent: () => undefined,
  } as unknown as Ztunnel;
  const socket = await connectNodeAgent({
    path: server.path,
    instance: 'ztunnel-a',
    ztunnel,
    log: createLogger({ component: 'test', write: () => undefined }),
  });
  t.after(() => socket.destroy());
  await server.whenSnapshotAcked('ztunnel-a');

  await server.shutdownStarting('u1');
  let cniDelDone = false;
  const cniDel = server.cniDel('u1').then(() => {
    cniDelDone = true;
  });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(
    cniDelDone,
    false,
    'CNI DEL waits for ztunnel to finish with the pod (the network is still there)',
  );
  drained.resolve(undefined);
  await cniDel;
  await server.delWorkload('u1', { networkGone: true });
  assert.deepEqual(calls, [
    'shutdown-starting u1',
    'cni-del u1 begins',
    'cni-del u1 drained',
    'del u1 networkGone=true',
  ]);
});
