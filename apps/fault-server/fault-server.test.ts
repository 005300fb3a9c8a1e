import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { createSystemClock } from '../../lib/index.ts';
import { startFaultServer } from './fault-server.ts';

const HOST = '127.77.0.1';

function get(
  port: number,
  path: string,
  agent?: Agent,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path, agent: agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('fault server', () => {
  it('answers the go-httpbin routes the experiments use', async (t) => {
    const server = await startFaultServer({
      host: HOST,
      port: 0,
      hostname: 'httpbin-abc',
      clock: createSystemClock(),
    });
    t.after(() => server.destroy());
    const { port } = server.address;
    assert.deepEqual(await get(port, '/status/418').then((r) => [r.status, r.body]), [418, "I'm a teapot!"]);
    assert.equal((await get(port, '/status/503')).status, 503);
    assert.equal(
      (JSON.parse((await get(port, '/hostname')).body) as { hostname: string }).hostname,
      'httpbin-abc',
    );
    assert.equal(
      (JSON.parse((await get(port, '/get?x=1')).body) as { args: Record<string, string> }).args['x'],
      '1',
    );
    assert.equal((await get(port, '/delay/11')).status, 400);
    const started = performance.now();
    assert.equal((await get(port, '/delay/0.05')).status, 200);
    assert.ok(performance.now() - started >= 45);
  });

  it('on close: refuses new connections, closes idle keep-alive, finishes the in-flight request', async (t) => {
    const server = await startFaultServer({ host: HOST, port: 0, hostname: 'h', clock: createSystemClock() });
    t.after(() => server.destroy());
    const { port } = server.address;
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    t.after(() => {
      agent.destroy();
    });
    await get(port, '/get', agent); // leaves one idle keep-alive connection in the agent
    const idle = Object.values(agent.freeSockets).flat()[0];
    assert.ok(idle, 'expected an idle keep-alive socket');
    const idleClosed = once(idle, 'close');
    const inFlight = get(port, '/delay/0.3');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.inFlight(), 1);
    const closing = server.close();
    await idleClosed;
    const refused = connect({ host: HOST, port });
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    assert.equal(err.code, 'ECONNREFUSED');
    const reply = await inFlight;
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['connection'], 'close');
    await closing;
  });
});
