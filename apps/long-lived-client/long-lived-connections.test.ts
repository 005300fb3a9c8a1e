import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { createSystemClock } from '../../lib/index.ts';
import { startLongLivedConnections } from './long-lived-connections.ts';

test('a long-lived connection reset by the server is recorded as reset, one closed with FIN as closed, and both reconnect', async () => {
  const sockets: Socket[] = [];
  // A minimal keep-alive server answering 204 to each request on real sockets.
  const server = createServer((s) => {
    sockets.push(s);
    s.on('data', () => s.write('HTTP/1.1 204 No Content\r\n\r\n'));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const clock = createSystemClock();
  const conns = startLongLivedConnections({
    targets: [{ host: '127.0.0.1', port, pod: 'p', node: 'n' }],
    count: 2,
    intervalMs: 50,
    clock,
  });
  await new Promise((r) => setTimeout(r, 300));
  const [first, second] = sockets;
  assert.ok(first && second);
  first.resetAndDestroy();
  second.end();
  await new Promise((r) => setTimeout(r, 300));
  const lives = await conns.stop();
  server.close();
  for (const s of sockets) s.destroy();
  const gen0 = lives
    .filter((l) => l.generation === 0)
    .map((l) => l.end)
    .sort();
  assert.deepEqual(gen0, ['closed', 'reset']);
  const reconnects = lives.filter((l) => l.generation === 1);
  assert.equal(reconnects.length, 2);
  assert.ok(reconnects.every((l) => l.requestsOk >= 2 && l.requestsFailed === 0 && l.end === 'open'));
  assert.ok(lives.filter((l) => l.generation === 0).every((l) => l.requestsOk >= 3));
});
