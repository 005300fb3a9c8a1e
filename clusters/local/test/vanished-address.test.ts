import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { prepareVanish } from '../vanished-address.ts';

const IP = '127.81.0.1';

/** What a client sees within `ms`: 'connected', an errno, or 'nothing'. */
function dial(port: number, ms: number): Promise<string> {
  const socket = connect({ host: IP, port });
  return new Promise<string>((resolve) => {
    const timer = setTimeout(() => {
      resolve('nothing');
    }, ms);
    socket.once('connect', () => {
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      resolve(String(err.code));
    });
    socket.once('close', () => {
      clearTimeout(timer);
    });
  }).finally(() => socket.destroy());
}

test('a vanished pod address answers nothing on its ports (no SYN-ACK, no RST) until released', async (t) => {
  const app = createServer(() => undefined).listen({ host: IP, port: 18080, reusePort: true });
  await once(app, 'listening');
  assert.equal(await dial(18080, 500), 'connected');
  const pending = await prepareVanish(IP, [18080]);
  t.after(() => {
    pending.release();
  });
  app.close(); // the app and the pod's listeners are gone: CNI DEL comes next
  const held = await pending.vanish();
  assert.equal(await dial(18080, 700), 'nothing', 'a connect waits for its own timeout');
  assert.equal(await dial(18081, 700), 'ECONNREFUSED', 'a port the pod never had still refuses');
  held.release();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await dial(18080, 700), 'ECONNREFUSED', 'released: nothing holds it any more');
});
