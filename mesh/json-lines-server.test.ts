// The skeleton both line-protocol servers share; their garbage handling is tested through them in
// json-lines.test.ts.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { it } from 'node:test';
import { waitUntil } from '../lib/test/wait-until.ts';
import { encodeLine } from './json-lines.ts';
import { startJsonLinesServer } from './json-lines-server.ts';
import type { JsonLinesServer } from './json-lines-server.ts';

interface TestPeer {
  socket: Socket;
  name: string;
}

/** A server whose greeting is `{ hi: name }`, recording what each hook saw. */
async function startTestServer() {
  const seen: string[] = [];
  const server = await startJsonLinesServer<TestPeer>({
    listen: { host: '127.0.0.1', port: 0 },
    protocol: 'test',
    greet: ({ hi }, socket) => (typeof hi === 'string' ? { socket, name: hi } : undefined),
    onGreeted: (peer) => seen.push(`greeted ${peer.name}`),
    onMessage: (message, peer) => seen.push(`${peer.name}: ${JSON.stringify(message)}`),
    onClosed: (peer) => seen.push(`closed ${peer.name}`),
  });
  return { server, seen };
}

async function connectTo(server: JsonLinesServer<TestPeer>): Promise<Socket> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined); // closed by the server under test: either way it ends
  await once(socket, 'connect');
  return socket;
}

it('ignores a connection until it greets, then hands its messages over; peers in greeting order', async (t) => {
  const { server, seen } = await startTestServer();
  t.after(() => server.destroy());
  const [a, b] = [await connectTo(server), await connectTo(server)];
  a.write(encodeLine({ before: 'greeting' }));
  b.write(encodeLine({ hi: 'b' }));
  await waitUntil('b greeted', () => server.peers().length === 1);
  a.write(encodeLine({ hi: 'a' }) + encodeLine({ ack: 1 }));
  await waitUntil('a answered', () => seen.length === 3);
  assert.deepEqual(seen, ['greeted b', 'greeted a', 'a: {"ack":1}']);
  assert.deepEqual(
    server.peers().map((p) => p.name),
    ['b', 'a'],
  );
  b.destroy();
  await waitUntil('b gone', () => server.peers().length === 1);
  assert.equal(seen.at(-1), 'closed b');
});

it('close() ends every peer and resolves once the listener is closed; destroy() ends the rest; both idempotent', async (t) => {
  const { server, seen } = await startTestServer();
  t.after(() => server.destroy());
  const peer = await connectTo(server);
  const silent = await connectTo(server);
  peer.write(encodeLine({ hi: 'p' }));
  await waitUntil('p greeted', () => server.peers().length === 1);
  const silentClosed = once(silent, 'close');
  let isClosed = false;
  const closing = server.close().then(() => {
    isClosed = true;
  });
  await once(peer, 'close');
  await new Promise((r) => setTimeout(r, 30)); // time for the silent one's close to arrive, were it sent
  assert.deepEqual(seen, ['greeted p', 'closed p']);
  assert.equal(isClosed, false, 'close() waits for the connection that never greeted');
  assert.equal(silent.readyState, 'open');
  await Promise.all([server.destroy(), closing, server.close()]);
  await silentClosed;
  assert.equal(server.address(), null);
  await server.destroy();
});
