// The gateway against real ztunnel pod listeners (in-process) and real httpbin servers, over HBONE
// and plain TCP: Envoy's answers for live pods, for a pod whose app has exited while it is still
// listed, with and without `reset` retries, max connection duration, the Keep-Alive hint Envoy
// ignores, and a downstream that leaves before its answer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { startFaultServer } from '../../../apps/fault-server/fault-server.ts';
import { createSystemClock } from '../../../lib/index.ts';
import { waitUntil } from '../../../lib/test/wait-until.ts';
import { startTestPod, testWorkload } from '../../../ztunnel/inbound/test/fixtures.ts';
import { createDiscoveryState } from '../../discovery/index.ts';
import type { WorkloadEntry } from '../../discovery/index.ts';
import { createHbonePool } from '../../hbone/index.ts';
import { createCertificateAuthority, formatSpiffeId, mtlsContext } from '../../pki/index.ts';
import { parseAccessLogLine } from '../access-log.ts';
import { RESPONSE_FLAGS_HEADER, startGateway } from '../gateway.ts';
import { ISTIO_DEFAULT_RETRY_ON, parseRetryPolicy } from '../retry-policy.ts';
import { ISTIO_UPSTREAM_LIMITS, plainUpstreamDiscovery, ROUTE } from './plain-route.ts';

type After = { after: (fn: () => Promise<void> | void) => void };
const ca = await createCertificateAuthority();
const clock = createSystemClock();
const id = (namespace: string, serviceAccount: string) =>
  formatSpiffeId({ trustDomain: 'cluster.local', namespace, serviceAccount });

function get(
  port: number,
  host: string,
  path: string,
): Promise<{ status: number; flags: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          flags: String(res.headers[RESPONSE_FLAGS_HEADER] ?? ''),
          body,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends GET /get and closes the connection `afterMs` later, unanswered; resolves when it left. */
async function sendAndLeave(address: { address: string; port: number }, afterMs: number): Promise<number> {
  const req = request({ host: address.address, port: address.port, path: '/get' });
  req.on('error', () => undefined); // destroyed below
  req.end();
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  req.destroy();
  return performance.now();
}

/** Two httpbin pods behind real ztunnel listeners, and a gateway in front of them. */
async function setup(
  t: After,
  net: number,
  options: { retryOn: string; mode: 'hbone' | 'plain'; maxConnectionDurationMs?: number },
) {
  const pods = [testWorkload(net, 1), testWorkload(net, 2)];
  const serverCert = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
  const apps = [];
  const ztunnelLogs = [];
  for (const pod of pods) {
    const app = await startFaultServer({ host: pod.appIp, port: 8080, hostname: pod.name, clock });
    t.after(() => app.destroy());
    apps.push(app);
    ztunnelLogs.push((await startTestPod(t, pod, serverCert)).lines);
  }
  const discovery = createDiscoveryState();
  const entries: WorkloadEntry[] = pods.map((p) => ({
    ...p,
    node: 'node-1',
    status: 'HEALTHY',
    protocol: 'HBONE',
    capacity: 1,
    services: ['default/httpbin'],
  }));
  discovery.apply({
    type: 'delta',
    version: '1',
    nonce: '1',
    workloads: { upsert: entries, remove: [] },
    services: {
      upsert: [
        {
          namespace: 'default',
          name: 'httpbin',
          vip: `127.${String(net)}.1.1`,
          ports: [{ port: 8000, targetPort: 8080 }],
        },
      ],
      remove: [],
    },
  });
  const accessLog: string[] = [];
  const pool = createHbonePool({ clock });
  const gatewayCert = await ca.issue({ namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' });
  const gateway = await startGateway({
    host: `127.${String(net + 2)}.0.1`,
    port: 0,
    clock,
    discovery,
    route: ROUTE,
    ...(options.mode === 'hbone'
      ? {
          hbone: {
            kind: 'hbone' as const,
            pool,
            cert: gatewayCert,
            srcIdentity: id('istio-system', 'istio-ingressgateway'),
            dstIdentity: id('default', 'httpbin'),
          },
        }
      : {}),
    retry: parseRetryPolicy({ numRetries: 2, retryOn: options.retryOn }),
    limits: {
      ...ISTIO_UPSTREAM_LIMITS,
      maxConnectionDurationMs: options.maxConnectionDurationMs ?? 0,
    },
    log: (line) => accessLog.push(line),
  });
  t.after(() => gateway.close());
  const send = (path: string) => get(gateway.address.port, gateway.address.address, path);
  return { pods, apps, ztunnelLogs, accessLog, send };
}

describe('gateway (Envoy-like)', () => {
  for (const mode of ['hbone', 'plain'] as const) {
    it(`${mode}: live pods answer; an exited app still listed -> 503 ${mode === 'hbone' ? 'UF' : 'UC'} and a ztunnel connection-failed line`, async (t) => {
      const { apps, ztunnelLogs, accessLog, send } = await setup(t, mode === 'hbone' ? 141 : 145, {
        retryOn: ISTIO_DEFAULT_RETRY_ON,
        mode,
      });
      for (let i = 0; i < 6; i++) assert.equal((await send('/status/418')).status, 418);
      assert.equal((await send('/get')).status, 200);
      await apps[0]?.close(); // the app exits; discovery still lists the pod as HEALTHY
      const replies = [];
      for (let i = 0; i < 20; i++) replies.push(await send('/status/418'));
      const failed = replies.filter((r) => r.status === 503);
      assert.ok(failed.length > 0, 'some requests went to the exited pod');
      assert.ok(replies.every((r) => r.status === 418 || r.status === 503));
      const flag = mode === 'hbone' ? 'UF' : 'UC';
      assert.ok(
        failed.every((r) => r.flags === flag),
        `flags ${failed.map((r) => r.flags).join(' ')}`,
      );
      assert.match(failed[0]?.body ?? '', /upstream connect error or disconnect\/reset before headers/);
      assert.ok(
        ztunnelLogs[0]?.some((l) => l.includes('connection failed: Connection refused (os error 111)')),
      );
      const logged = accessLog.map(parseAccessLogLine).filter((e) => e?.status === 503);
      assert.equal(logged.length, failed.length);
      assert.ok(logged.every((e) => e?.flags.join(',') === flag && e.upstream.startsWith('127.')));
    });

    it(`${mode}: with reset in retryOn the same fault is retried onto the other pod and no error reaches the client`, async (t) => {
      const { apps, accessLog, send } = await setup(t, mode === 'hbone' ? 151 : 155, {
        retryOn: `${ISTIO_DEFAULT_RETRY_ON},reset`,
        mode,
      });
      await apps[0]?.close();
      const replies = [];
      for (let i = 0; i < 20; i++) replies.push(await send('/status/418'));
      assert.deepEqual(
        replies.filter((r) => r.status !== 418),
        [],
      );
      const retried = accessLog.map(parseAccessLogLine).filter((e) => (e?.attempts ?? 0) > 1);
      assert.ok(retried.length > 0, 'some requests needed a second attempt');
    });
  }

  it('max connection duration rotates upstream connections without failing requests', async (t) => {
    const { accessLog, send } = await setup(t, 161, {
      retryOn: ISTIO_DEFAULT_RETRY_ON,
      mode: 'hbone',
      maxConnectionDurationMs: 100,
    });
    const statuses = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await send('/status/418')).status);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(new Set(statuses), new Set([418]));
    const connections = new Set(accessLog.map((l) => parseAccessLogLine(l)?.connectionId));
    assert.ok(
      connections.size >= 4,
      `expected rotation over ~600 ms at 100 ms max age, saw ${String(connections.size)} connections`,
    );
  });
});

it("keeps an idle upstream connection past the server's Keep-Alive: timeout hint, as Envoy does", async (t) => {
  // The upstream announces `Keep-Alive: timeout=2` but holds idle connections for a minute. Node's
  // http.Agent would close its pooled connection 1 s before the hint (after 1 s idle here); Envoy
  // ignores the header (envoyproxy/envoy#28105) and keeps it until its own idle_timeout.
  const upstreamConnections: unknown[] = [];
  const upstream = createServer((_req, res) => {
    res.setHeader('connection', 'keep-alive');
    res.setHeader('keep-alive', 'timeout=2');
    res.writeHead(418).end();
  });
  upstream.keepAliveTimeout = 60_000;
  upstream.on('connection', (s) => upstreamConnections.push(s));
  upstream.listen(0, '127.171.0.1');
  await once(upstream, 'listening');
  t.after(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  const discovery = plainUpstreamDiscovery('127.171.0.1', (upstream.address() as AddressInfo).port);
  const gateway = await startGateway({
    host: '127.172.0.1',
    port: 0,
    clock,
    discovery,
    route: ROUTE,
    retry: parseRetryPolicy({ numRetries: 2, retryOn: ISTIO_DEFAULT_RETRY_ON }),
    limits: ISTIO_UPSTREAM_LIMITS,
    log: () => undefined,
  });
  t.after(() => gateway.close());
  const send = () => get(gateway.address.port, gateway.address.address, '/status/418');
  assert.equal((await send()).status, 418);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal((await send()).status, 418);
  assert.equal(upstreamConnections.length, 1, 'the second request reused the first connection');
});

it('a downstream that goes away unanswered cancels the upstream request and is logged 0 DC', async (t) => {
  // Envoy resets the upstream request when its client leaves (k6's request timeout does this); an
  // HTTP/1.1 request is cancelled by closing its upstream connection.
  const upstreamClosed = Promise.withResolvers<number>();
  const upstream = createServer(() => {
    // never answers
  });
  upstream.on('connection', (s) => {
    s.once('close', () => {
      upstreamClosed.resolve(performance.now());
    });
  });
  upstream.listen(0, '127.173.0.1');
  await once(upstream, 'listening');
  t.after(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  const accessLog: string[] = [];
  const gateway = await startGateway({
    host: '127.174.0.1',
    port: 0,
    clock,
    discovery: plainUpstreamDiscovery('127.173.0.1', (upstream.address() as AddressInfo).port),
    route: ROUTE,
    retry: parseRetryPolicy({ numRetries: 2, retryOn: ISTIO_DEFAULT_RETRY_ON }),
    limits: ISTIO_UPSTREAM_LIMITS,
    log: (line) => accessLog.push(line),
  });
  t.after(() => gateway.close());
  const leftAt = await sendAndLeave(gateway.address, 200);
  const closedAt = await Promise.race([
    upstreamClosed.promise,
    new Promise<number>((resolve) =>
      setTimeout(() => {
        resolve(Infinity);
      }, 2000).unref(),
    ),
  ]);
  assert.ok(
    closedAt - leftAt < 1000,
    `upstream closed ${String(closedAt - leftAt)} ms after the client left`,
  );
  await waitUntil('the access-log line', () => accessLog.length > 0);
  const entry = parseAccessLogLine(accessLog[0] ?? '');
  assert.deepEqual([entry?.status, entry?.flags, entry?.attempts], [0, ['DC'], 1]);
});

it('a client that leaves while its CONNECT goes unanswered (the peer went silent) is logged 0 DC at once', async (t) => {
  // A pooled HBONE connection whose peer vanished (its pod's network gone) never answers a CONNECT:
  // the request has no connection yet, so closing one cannot cancel it; the attempt must end anyway.
  const serverCert = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
  const silent = createSecureServer(mtlsContext(serverCert));
  silent.on('stream', () => {
    // never answers
  });
  silent.listen(15008, '127.175.0.1');
  await once(silent, 'listening');
  t.after(() => {
    silent.close();
  });
  const discovery = plainUpstreamDiscovery('127.175.0.1', 8080);
  const entry = discovery.endpointsOf(
    discovery.serviceByName('default', 'httpbin') ?? assert.fail('no service'),
  )[0];
  assert.ok(entry);
  discovery.apply({
    type: 'delta',
    version: '2',
    nonce: '2',
    workloads: { upsert: [{ ...entry, protocol: 'HBONE' }], remove: [] },
    services: { upsert: [], remove: [] },
  });
  const pool = createHbonePool({ clock });
  t.after(() => {
    pool.destroy();
  });
  const accessLog: string[] = [];
  const gateway = await startGateway({
    host: '127.176.0.1',
    port: 0,
    clock,
    discovery,
    route: ROUTE,
    hbone: {
      kind: 'hbone',
      pool,
      cert: await ca.issue({ namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' }),
      srcIdentity: id('istio-system', 'istio-ingressgateway'),
      dstIdentity: id('default', 'httpbin'),
    },
    retry: parseRetryPolicy({ numRetries: 2, retryOn: ISTIO_DEFAULT_RETRY_ON }),
    limits: ISTIO_UPSTREAM_LIMITS,
    log: (line) => accessLog.push(line),
  });
  t.after(() => gateway.close());
  await sendAndLeave(gateway.address, 300);
  await waitUntil('the access-log line', () => accessLog.length > 0, 2000);
  const logged = parseAccessLogLine(accessLog[0] ?? '');
  assert.deepEqual([logged?.status, logged?.flags], [0, ['DC']]);
});
