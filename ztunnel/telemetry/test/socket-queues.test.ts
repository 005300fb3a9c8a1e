import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { parseSocketTable, readSocketQueues, socketKey } from '../socket-queues.ts';

test('a /proc/net/tcp{,6} row: addresses decoded from little-endian hex, rx_queue read', () => {
  const v4 = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100A77F:3AA8 0100007F:C0E2 01 00000000:000001F4 00:00000000 00000000     0        0 4242 1',
  ].join('\n');
  assert.deepEqual(parseSocketTable(v4), [{ key: '127.167.0.1:15016|127.0.0.1:49378', rxQueue: 500 }]);
  const v6 = [
    '  sl  local_address                         remote_address                        st tx_queue rx_queue',
    '   0: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000200007F:D431 01 00000000:00000000',
    '   1: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:D432 01 00000000:00000010',
  ].join('\n');
  assert.deepEqual(parseSocketTable(v6), [
    { key: '127.0.0.1:8080|127.0.0.2:54321', rxQueue: 0 },
    { key: '::1:8080|::1:54322', rxQueue: 16 },
  ]);
});

test("the kernel's receive queue of a real socket: unread while the process does not read, empty once it has", async (t) => {
  const accepted: Socket[] = [];
  const server = createServer({ pauseOnConnect: true }, (s) => accepted.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  t.after(() => client.destroy());
  while (accepted.length === 0) await new Promise((resolve) => setImmediate(resolve));
  const [serverSide] = accepted;
  assert.ok(serverSide);
  t.after(() => serverSide.destroy());
  const key = socketKey(serverSide);
  assert.ok(key);
  client.write(Buffer.alloc(1000, 1));
  // Paused: the bytes wait in the kernel (the loopback delivers them within a moment).
  let queues = await readSocketQueues();
  for (let i = 0; i < 50 && !queues?.unread.has(key); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    queues = await readSocketQueues();
  }
  assert.ok(queues?.seen.has(key), `${key} in the table`);
  assert.ok(queues?.unread.has(key), 'unread while paused');
  let got = 0;
  serverSide.on('data', (chunk: Buffer) => (got += chunk.length));
  serverSide.resume();
  while (got < 1000) await new Promise((resolve) => setTimeout(resolve, 5));
  const after = await readSocketQueues();
  assert.ok(after?.seen.has(key));
  assert.equal(after?.unread.has(key), false, 'read: nothing left in the kernel');
});
