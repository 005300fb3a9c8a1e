import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeProxyV2, parseProxyV2 } from './proxy-protocol.ts';

test('PROXY v2 round trip, byte by byte arrival, and refusal of anything else', () => {
  const header = encodeProxyV2({ ip: '127.1.0.5', port: 40000 }, { ip: '10.96.0.10', port: 80 });
  assert.equal(header.length, 28);
  assert.equal(header.subarray(0, 12).toString('latin1'), '\r\n\r\n\0\r\nQUIT\n');
  for (let i = 0; i < header.length; i++) assert.equal(parseProxyV2(header.subarray(0, i)), undefined);
  const withPayload = Buffer.concat([header, Buffer.from('GET / HTTP/1.1\r\n')]);
  assert.deepEqual(parseProxyV2(withPayload), {
    src: { ip: '127.1.0.5', port: 40000 },
    dst: { ip: '10.96.0.10', port: 80 },
    length: 28,
  });
  assert.throws(() => parseProxyV2(Buffer.from('GET / HTTP/1.1\r\n')), /not a PROXY protocol v2 header/);
  assert.throws(() => encodeProxyV2({ ip: '::1', port: 1 }, { ip: '127.0.0.1', port: 2 }), /IPv4 only/);
});
