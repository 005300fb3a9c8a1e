// The kernel behaviour ztunnel's force-close relies on, on real sockets: a socket closed with no
// SO_LINGER sends a FIN, and a RST only when data it received is still unread (RFC 2525 section
// 2.17, Linux tcp_close). Upstream's drain drops its connections this way (no SO_LINGER in
// istio/ztunnel), so a client sees which of the two happened by what it had sent.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import { test } from 'node:test';

async function endOf(client: Socket): Promise<string> {
  return new Promise((resolve) => {
    client.on('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code ?? err.message);
    });
    client.on('end', () => {
      resolve('FIN');
    });
  });
}

for (const [readFirst, expected] of [
  [true, 'FIN'],
  [false, 'ECONNRESET'],
] as const) {
  test(`close() of a socket whose received bytes are ${readFirst ? 'all read: FIN' : 'still unread: RST'}`, async (t) => {
    const accepted = Promise.withResolvers<Socket>();
    // pauseOnConnect: nothing is read from the kernel until resume(), as a proxy that has not begun
    // copying yet.
    const server = createServer({ pauseOnConnect: true }, (socket) => {
      accepted.resolve(socket);
    });
    server.listen({ host: '127.79.0.1', port: 0 });
    await once(server, 'listening');
    t.after(() => server.close());
    const client = connect({ host: '127.79.0.1', port: (server.address() as { port: number }).port });
    const ended = endOf(client);
    await once(client, 'connect');
    const socket = await accepted.promise;
    client.write('GET / HTTP/1.1\r\n\r\n');
    if (readFirst) {
      socket.resume();
      await once(socket, 'data');
    } else {
      // Let the bytes reach the server's receive queue, unread.
      await new Promise((r) => setTimeout(r, 50));
    }
    socket.destroy();
    assert.equal(await ended, expected);
    client.destroy();
  });
}
