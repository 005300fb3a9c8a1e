// The JSON-lines framing every control connection uses (discovery, node agent), and the listeners
// built on it (the CA's refusals are in pki/test/ca-server.test.ts): garbage from any local process is refused as the protocol
// allows (the connection closed, a 400) and never thrown into the event loop - an uncaught throw
// here would end the test process, and in a run the harness with the whole cluster.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { createSystemClock } from '../lib/index.ts';
import { waitUntil } from '../lib/test/wait-until.ts';
import { connectDiscovery, startDiscoveryServer } from './discovery/index.ts';
import {
  badLinesByProtocol,
  createLineDecoder,
  createPendingAnswers,
  encodeLine,
  MAX_LINE_BYTES,
} from './json-lines.ts';
import { NODE_AGENT_PROTOCOL_VERSION, startNodeAgentServer } from './node-agent/index.ts';

it('decodes a character split across chunks whole', () => {
  const messages: unknown[] = [];
  const feed = createLineDecoder((m) => messages.push(m));
  const bytes = Buffer.from(encodeLine({ name: 'zürich-日本' }) + encodeLine({ ok: 1 }));
  const cut = bytes.indexOf(0xe6) + 1; // inside the three bytes of 日
  feed(bytes.subarray(0, cut));
  feed(bytes.subarray(cut));
  assert.deepEqual(messages, [{ name: 'zürich-日本' }, { ok: 1 }]);
});

it('refuses non-JSON, non-objects and oversized lines, then ignores the rest of the stream', () => {
  const cases: [Buffer[], string][] = [
    [[Buffer.from('{not json\n{"ok":1}\n')], 'not JSON'],
    [[Buffer.from('null\n')], 'not a JSON object'],
    [[Buffer.from('[1,2]\n')], 'not a JSON object'],
    [[Buffer.from('42\n')], 'not a JSON object'],
    [
      [Buffer.alloc(MAX_LINE_BYTES + 1, 0x61), Buffer.from('\n{"ok":1}\n')],
      `a line longer than ${String(MAX_LINE_BYTES)} bytes`,
    ],
  ];
  for (const [chunks, reason] of cases) {
    const messages: unknown[] = [];
    const bad: string[] = [];
    const feed = createLineDecoder(
      (m) => messages.push(m),
      (r) => bad.push(r),
    );
    feed(Buffer.from('{"first":true}\n'));
    for (const c of chunks) feed(c);
    assert.deepEqual(messages, [{ first: true }], reason);
    assert.deepEqual(
      bad.map((r) => r.replace(/:.*/, '')),
      [reason],
    );
  }
});

/** Writes `payload` on a new connection and resolves when the server has closed it. */
async function sendGarbage(target: { host: string; port: number } | { path: string }, payload: Buffer) {
  const socket = 'path' in target ? connect(target.path) : connect(target.port, target.host);
  socket.on('error', () => undefined); // the server may reset it: either way it is closed
  await once(socket, 'connect');
  socket.write(payload);
  await once(socket, 'close');
}

const GARBAGE = [
  Buffer.from('{not json\n'),
  Buffer.from('null\n'),
  Buffer.from('"subscribe"\n'),
  Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x0a]), // a TLS ClientHello's start, then a newline
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
];

it('the discovery server closes a connection that sends garbage and keeps serving the others', async (t) => {
  const server = await startDiscoveryServer({ host: '127.177.0.1', clock: createSystemClock() });
  t.after(() => server.close());
  const before = badLinesByProtocol.get('discovery') ?? 0;
  for (const payload of GARBAGE) await sendGarbage(server, payload);
  assert.equal((badLinesByProtocol.get('discovery') ?? 0) - before, GARBAGE.length);
  const client = await connectDiscovery({
    host: server.host,
    port: server.port,
    node: 'node-1',
    instance: 'z1',
  });
  t.after(() => {
    client.close();
  });
  await client.synced;
});

it('the node agent server closes a connection that sends garbage and keeps serving the others', async (t) => {
  const path = join(tmpdir(), `node-agent-garbage-${String(process.pid)}.sock`);
  const server = await startNodeAgentServer(path);
  t.after(() => server.close());
  const before = badLinesByProtocol.get('node agent') ?? 0;
  for (const payload of GARBAGE) await sendGarbage({ path }, payload);
  assert.equal((badLinesByProtocol.get('node agent') ?? 0) - before, GARBAGE.length);
  const hello = connect(path);
  t.after(() => hello.destroy());
  await once(hello, 'connect');
  const got: unknown[] = [];
  hello.on(
    'data',
    createLineDecoder((m) => got.push(m)),
  );
  hello.write(encodeLine({ type: 'hello', version: NODE_AGENT_PROTOCOL_VERSION, instance: 'z1' }));
  await waitUntil('the node agent answering hello', () => got.length > 0);
  const first = got[0] as { type?: string; seq?: number };
  assert.equal(first.type, 'snapshot-sent'); // no workloads on this node yet
  hello.write(encodeLine({ type: 'ack', seq: first.seq }));
  await server.whenSnapshotAcked('z1');
});

it('pending answers: each waits for its own id; a close settles the rest; a stray answer is ignored', async () => {
  const answers = createPendingAnswers<number, string>();
  const one = answers.expect(1);
  const two = answers.expect(2);
  answers.answer(9, 'stray');
  answers.answer(2, 'ack');
  assert.equal(await two, 'ack');
  answers.close('gone');
  assert.equal(await one, 'gone');
  answers.answer(1, 'late');
  const three = answers.expect(3);
  answers.answer(3, 'ack');
  assert.equal(await three, 'ack');
});
