// The meshed client's one request: PROXY v2 then HTTP/1.1 to a capture listener, over real sockets.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { parseProxyV2 } from '../../mesh/proxy-protocol.ts';
import { formatClientRequest, parseClientRequest, sendThroughCapture } from './client-load.ts';

const podIp = '127.74.0.1';
const target = {
  podIp,
  appIp: '127.74.0.2',
  vip: '10.96.0.20',
  port: 8000,
  path: '/status/418',
  timeoutMs: 300,
};

async function capture(t: { after: (fn: () => unknown) => void }, onConn: (s: Socket, data: Buffer) => void) {
  const server = createServer((s) => {
    s.once('data', (data: Buffer) => {
      onConn(s, data);
    });
  });
  server.listen({ host: podIp, port: 15001 });
  await once(server, 'listening');
  t.after(() => {
    server.close();
  });
}

test('the request names its Service in PROXY v2, from the app address, and the status comes back', async (t) => {
  let seen: { src: string; dst: string; from: string; request: string } | undefined;
  await capture(t, (s, data) => {
    const header = parseProxyV2(data);
    assert.ok(header);
    seen = {
      src: header.src.ip,
      dst: `${header.dst.ip}:${String(header.dst.port)}`,
      from: s.remoteAddress ?? '',
      request: data.subarray(header.length).toString('latin1').split('\r\n')[0] ?? '',
    };
    s.end("HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  });
  const r = await sendThroughCapture(target, Date.now);
  assert.deepEqual([r.status, r.error], [418, '']);
  assert.deepEqual(seen, {
    src: podIp,
    dst: '10.96.0.20:8000',
    from: '127.74.0.2',
    request: 'GET /status/418 HTTP/1.1',
  });
});

test('no response: closed, reset and timed out are told apart', async (t) => {
  let mode: 'end' | 'reset' | 'silent' = 'end';
  await capture(t, (s) => {
    if (mode === 'end') s.end();
    else if (mode === 'reset') s.resetAndDestroy();
  });
  assert.deepEqual(await sendThroughCapture(target, Date.now).then((r) => [r.status, r.error]), [
    0,
    'closed',
  ]);
  mode = 'reset';
  assert.deepEqual(await sendThroughCapture(target, Date.now).then((r) => [r.status, r.error]), [
    0,
    'ECONNRESET',
  ]);
  mode = 'silent';
  const slow = await sendThroughCapture(target, Date.now);
  assert.deepEqual([slow.status, slow.error], [0, 'timeout']);
  assert.ok(slow.durationMs >= 290, `timed out after the timeout (${String(slow.durationMs)} ms)`);
});

test('the log line reads back as written', () => {
  const r = { startWallMs: 1_700_000_000_123, durationMs: 3.14, status: 0, error: 'ECONNREFUSED' };
  assert.deepEqual(parseClientRequest(`2026-11-23T00:00:00.000Z info  client ${formatClientRequest(r)}`), {
    ...r,
    durationMs: 3.1,
  });
  assert.equal(parseClientRequest('client started target=10.96.0.20:8000'), undefined);
});
