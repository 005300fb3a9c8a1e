import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { test } from 'node:test';
import { createSystemClock } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { createLineDecoder, encodeLine } from '../json-lines.ts';
import type { StartupFailure } from '../startup-retry.ts';
import { connectDiscovery, connectDiscoveryWithRetry } from './discovery-client.ts';
import { startDiscoveryServer } from './discovery-server.ts';
import type { DiscoveryServer } from './discovery-server.ts';
import { createDiscoveryState } from './discovery-state.ts';
import type { DiscoveryChange } from './discovery-state.ts';
import type { ClientMessage, ServerMessage, WorkloadEntry } from './protocol.ts';

const svc = {
  namespace: 'default',
  name: 'httpbin',
  vip: '127.90.0.1',
  ports: [{ port: 80, targetPort: 8080 }],
};
const pod = (n: number, status: WorkloadEntry['status'] = 'HEALTHY'): WorkloadEntry => ({
  uid: `uid-${String(n)}`,
  name: `httpbin-${String(n)}`,
  namespace: 'default',
  serviceAccount: 'httpbin',
  node: 'node-1',
  podIp: `127.91.0.${String(n)}`,
  status,
  capacity: 1,
  protocol: 'HBONE',
  services: ['default/httpbin'],
});

function delta(
  version: string,
  partial: Partial<Omit<ServerMessage, 'type' | 'version' | 'nonce'>>,
): ServerMessage {
  return {
    type: 'delta',
    version,
    nonce: `nonce-${version}`,
    workloads: partial.workloads ?? { upsert: [], remove: [] },
    services: partial.services ?? { upsert: [], remove: [] },
  };
}

/** A small control-plane double: records what the client says, sends what the test says. */
async function startServer(t: { after: (fn: () => void) => void }) {
  const received: ClientMessage[] = [];
  const waiters: (() => void)[] = [];
  let client: Socket | undefined;
  const connected = Promise.withResolvers<undefined>();
  const server = createServer((socket) => {
    client = socket;
    socket.on(
      'data',
      createLineDecoder((m) => {
        received.push(m as ClientMessage);
        if ((m as ClientMessage).type === 'subscribe') connected.resolve(undefined);
        for (const w of waiters.splice(0)) w();
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    client?.destroy();
    server.close();
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connected: connected.promise,
    /** Ends the client's connection, as a restarting control plane does. */
    drop: () => client?.end(),
    /** Sends a delta and waits for the client's answer to it. */
    async push(message: ServerMessage): Promise<ClientMessage> {
      const before = received.length;
      client?.write(encodeLine(message));
      while (received.length === before) await new Promise<void>((r) => waiters.push(r));
      return received[received.length - 1] as ClientMessage;
    },
  };
}

test('subscribe, full state, ACKed deltas, a NACKed delta leaves the state untouched', async (t) => {
  const server = await startServer(t);
  const changes: DiscoveryChange[] = [];
  const client = await connectDiscovery({
    host: '127.0.0.1',
    port: server.port,
    node: 'node-1',
    instance: 'zt-a',
    onChange: (c) => changes.push(c),
  });
  t.after(() => {
    client.close();
  });
  await server.connected;
  assert.deepEqual(server.received[0], { type: 'subscribe', protocol: 1, node: 'node-1', instance: 'zt-a' });

  const full = delta('v1', {
    workloads: { upsert: [pod(1), pod(2)], remove: [] },
    services: { upsert: [svc], remove: [] },
  });
  assert.deepEqual(await server.push(full), { type: 'ack', nonce: 'nonce-v1', version: 'v1' });
  await client.synced;
  const service = client.state.serviceByVip('127.90.0.1');
  assert.ok(service);
  assert.deepEqual(
    client.state.endpointsOf(service).map((w) => w.name),
    ['httpbin-1', 'httpbin-2'],
  );

  assert.deepEqual(
    await server.push(delta('v2', { workloads: { upsert: [pod(1, 'UNHEALTHY')], remove: [] } })),
    { type: 'ack', nonce: 'nonce-v2', version: 'v2' },
  );
  assert.deepEqual(
    changes.at(-1)?.becameUnhealthy.map((w) => w.uid),
    ['uid-1'],
  );

  const bad = delta('v3', { workloads: { upsert: [{ ...pod(3), podIp: 'not-an-ip' }], remove: ['uid-2'] } });
  const answer = await server.push(bad);
  assert.ok(answer.type === 'nack', `expected a NACK, got ${answer.type}`);
  assert.match(answer.error, /uid-3.*invalid address "not-an-ip"/);
  assert.equal(client.state.version, 'v2', 'a NACKed delta is not applied');
  assert.ok(client.state.workloadByIp('127.91.0.2'), 'not even its valid part');

  await server.push(delta('v4', { workloads: { upsert: [], remove: ['uid-1'] } }));
  assert.deepEqual(
    changes.at(-1)?.removed.map((w) => w.uid),
    ['uid-1'],
  );
  assert.equal(client.state.workloadByIp('127.91.0.1'), undefined);
  assert.equal(client.state.version, 'v4');
});

test('the first subscription is retried while istiod is down or drops it, then syncs (issue 33 #6)', async (t) => {
  // A fresh address: nothing listens on it until the test says so.
  const host = '127.67.0.1';
  const port = 15010;
  let dropping: Server | undefined;
  let discovery: DiscoveryServer | undefined;
  t.after(async () => {
    if (dropping?.listening) dropping.close();
    await discovery?.close();
  });
  const waits: number[] = [];
  // The backoff's waits pass at once; during them istiod comes up: first as a listener that closes
  // every connection before its first update (istiod starting, or a proxy in front of it), then as
  // the real discovery server holding a workload.
  const clock: Clock = {
    now: () => waits.reduce((a, b) => a + b, 0),
    sleep: async (ms) => {
      waits.push(ms);
      if (waits.length === 1) {
        dropping = createServer((socket) => socket.destroy());
        dropping.listen(port, host);
        await once(dropping, 'listening');
      } else if (waits.length === 2) {
        const closed = once(dropping as Server, 'close');
        dropping?.close();
        await closed;
        discovery = await startDiscoveryServer({ host, port, clock: createSystemClock() });
        await discovery.push({ workloads: [pod(1)], services: [svc] });
      }
    },
    wallOffsetMs: 0,
  };
  const failures: StartupFailure[] = [];
  const client = await connectDiscoveryWithRetry({
    host,
    port,
    node: 'node-1',
    instance: 'zt-a',
    connectTimeoutMs: 1000,
    clock,
    onRetry: (failure) => failures.push(failure),
  });
  t.after(() => {
    client.close();
  });
  assert.deepEqual(waits, [100, 200]);
  assert.deepEqual(
    failures.map((f) => f.attempt),
    [1, 2],
  );
  assert.match(failures[0]?.reason ?? '', /ECONNREFUSED 127\.67\.0\.1:15010/);
  assert.match(failures[1]?.reason ?? '', /closed before the first update|ECONNRESET/);
  assert.equal(
    client.state.workloadByIp('127.91.0.1')?.name,
    'httpbin-1',
    'synced: the full state is applied',
  );
});

test('synced rejects when the connection closes before the first update', async (t) => {
  const server = createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const client = await connectDiscovery({ host: '127.0.0.1', port, node: 'node-1', instance: 'zt-a' });
  t.after(() => {
    client.close();
  });
  await assert.rejects(client.synced, { code: 'ECONNRESET', message: /closed before the first update/ });
});

test('resubscribing on the state a dropped stream filled: the subscribe names what is held, the first delta removes what is gone', async (t) => {
  const clock = createSystemClock();
  const server = await startDiscoveryServer({ host: '127.0.0.1', clock });
  t.after(() => server.close());
  await server.push({ workloads: [pod(1), pod(2)], services: [svc] });
  const first = await connectDiscovery({
    host: '127.0.0.1',
    port: server.port,
    node: 'node-1',
    instance: 'zt-a',
  });
  await first.synced;
  first.close();
  assert.equal(await first.ended, 'closed');

  // While it was away, pod 2 went and pod 3 came.
  await server.push({ workloads: [pod(1), pod(3)], services: [svc] });
  const changes: DiscoveryChange[] = [];
  const next = await connectDiscovery({
    host: '127.0.0.1',
    port: server.port,
    node: 'node-1',
    instance: 'zt-a',
    state: first.state,
    onChange: (c) => changes.push(c),
  });
  t.after(() => {
    next.close();
  });
  await next.synced;
  assert.equal(next.state, first.state, 'the same state');
  assert.deepEqual(
    next.state
      .workloads()
      .map((w) => w.uid)
      .sort(),
    ['uid-1', 'uid-3'],
  );
  assert.deepEqual(
    changes[0]?.removed.map((w) => w.uid),
    ['uid-2'],
  );
});

test('a subscribe names what it holds; a server closing the stream ends it with the reason', async (t) => {
  const server = await startServer(t);
  const state = createDiscoveryState();
  state.apply(
    delta('1', { workloads: { upsert: [pod(1)], remove: [] }, services: { upsert: [svc], remove: [] } }),
  );
  const client = await connectDiscovery({
    host: '127.0.0.1',
    port: server.port,
    node: 'node-1',
    instance: 'zt-a',
    state,
  });
  t.after(() => {
    client.close();
  });
  await server.connected;
  assert.deepEqual(server.received[0], {
    type: 'subscribe',
    protocol: 1,
    node: 'node-1',
    instance: 'zt-a',
    known: { workloads: ['uid-1'], services: ['default/httpbin'] },
  });
  server.drop();
  assert.equal(await client.ended, 'closed by the control plane');
});
