// What the old Node gateway's tests asserted (git show d9df3f6:mesh/gateway/test/gateway.test.ts),
// now asked of the real Envoy our control plane configures: a pod listed but with its app gone, a
// DestinationRule's max connection duration, and a client that leaves before its answer.
import assert from 'node:assert/strict';
import type { ClientRequest } from 'node:http';
import { describe, it } from 'node:test';
import { ROUTE_POLICY_METADATA } from '../../xds/index.ts';
import { get, podOf, startGatewayScene } from './gateway-scene.ts';
import { waitFor } from './observed.ts';
import { envoyMissing } from './proxy-fixture.ts';

/** Sends GET `path`, waits until `isInFlight()` says it reached its target, then leaves unanswered. */
async function sendAndLeave(
  ingress: string,
  path: string,
  isInFlight: () => Promise<unknown>,
): Promise<void> {
  let req: ClientRequest | undefined;
  const reply = get(ingress, path, (r) => (req = r)).then(
    (r) => assert.fail(`${path} was answered ${String(r.status)}; the client meant to leave first`),
    () => undefined, // the client's own destroy: socket hang up
  );
  await isInFlight();
  req?.destroy();
  await reply;
}

describe(
  'Envoy gateway: the old gateway tests, on the real Envoy',
  { skip: envoyMissing, timeout: 60_000 },
  () => {
    it('a pod still listed whose app is gone: ztunnel answers CONNECT 503, the client 503 UC, not retried', async (t) => {
      // E2's mechanism: the endpoint outlives its app. Envoy's outer connection to connect_originate
      // was up before the tunnel failed, so the failure is a connection termination, not a connect failure.
      const { mesh, proxy } = await startGatewayScene(t, '127.113.1', { appOn: [1] });
      const [gone, serving] = mesh.podIps;
      const paths = Array.from({ length: 16 }, (_, i) => `/gone/${String(i)}`);
      const replies = [];
      for (const path of paths) replies.push(await get(proxy.ingress, path));
      const failed = replies.filter((r) => r.status === 503);
      assert.ok(failed.length > 0, 'LEAST_REQUEST picked the pod without an app at least once in 16');
      assert.deepEqual(
        new Set(replies.map((r) => (r.status === 503 ? 503 : podOf(r)))),
        new Set([503, serving]),
      );
      const logged = await Promise.all(paths.map((p) => proxy.logFor(p)));
      const logged503 = logged.filter((e) => e.status === 503);
      assert.equal(logged503.length, failed.length);
      for (const e of logged503)
        assert.deepEqual(
          [e.flags, e.details, e.attempts, e.upstream],
          [['UC'], 'upstream_reset_before_response_started{connection_termination}', 1, `${gone}:8080`],
        );
      const tunnelFailures = proxy.lines.filter(
        (l) => l.startsWith('[connect_originate]') && l.includes('"tunnel_response:503"'),
      );
      assert.equal(tunnelFailures.length, failed.length, 'one failed tunnel per 503');
    });

    it("a DestinationRule's maxConnectionDuration rotates upstream connections without failing a request", async (t) => {
      const { peers, proxy } = await startGatewayScene(t, '127.113.2', {
        metadata: {
          [ROUTE_POLICY_METADATA]: JSON.stringify({ connectionPool: { maxConnectionDurationMs: 200 } }),
        },
      });
      const live = peers.flatMap((p) => (p ? [p] : []));
      const closedTunnels = (): number =>
        live.reduce((n, p) => n + p.tunnels.filter((u) => u.closed).length, 0);
      // Requests back to back until Envoy has closed three tunnels at their age limit.
      const paths: string[] = [];
      const statuses = new Set<number>();
      const end = performance.now() + 5000;
      while (closedTunnels() < 3 && performance.now() < end) {
        const path = `/aged/${String(paths.length)}`;
        paths.push(path);
        statuses.add((await get(proxy.ingress, path)).status);
      }
      assert.ok(
        closedTunnels() >= 3,
        `${String(closedTunnels())} tunnels closed after ${String(paths.length)} requests`,
      );
      assert.deepEqual(statuses, new Set([200]));
      await proxy.logFor(paths.at(-1) ?? '');
      const logged = proxy.accessLog().filter((e) => e.path.startsWith('/aged/'));
      assert.equal(logged.length, paths.length);
      assert.ok(logged.every((e) => e.status === 200 && e.flags.length === 0 && e.attempts === 1));
      // Counted twice: upstream connections in Envoy's log, CONNECT tunnels at the peers (one each).
      const connections = new Set(logged.map((e) => e.connectionId));
      const tunnels = live.reduce((n, p) => n + p.tunnels.length, 0);
      assert.equal(connections.size, tunnels);
      t.diagnostic(`${String(paths.length)} requests over ${String(tunnels)} connections`);
    });

    it('a client that leaves before its answer: logged 0 DC, and the request at the app is cancelled', async (t) => {
      const { apps, proxy } = await startGatewayScene(t, '127.113.3');
      await sendAndLeave(proxy.ingress, '/hold/leave', () =>
        waitFor(apps, 'the request at an app', () => apps.arrivals.find((a) => a.path === '/hold/leave')),
      );
      const e = await proxy.logFor('/hold/leave');
      assert.deepEqual([e.status, e.flags, e.attempts], [0, ['DC'], 1]);
      await waitFor(apps, "the app's connection closed by the proxy", () =>
        apps.arrivals.find((a) => a.path === '/hold/leave' && a.closed),
      );
    });

    it('a client that leaves while its CONNECT goes unanswered (a silent peer): logged 0 DC at once', async (t) => {
      const { peers, proxy } = await startGatewayScene(t, '127.113.4', { silentPeers: true });
      const live = peers.flatMap((p) => (p ? [p] : []));
      const tunnel = (): { closed: boolean } | undefined => live.flatMap((p) => p.tunnels)[0];
      await sendAndLeave(proxy.ingress, '/silent', () => waitFor(live, 'the CONNECT at a peer', tunnel));
      const e = await proxy.logFor('/silent');
      assert.deepEqual([e.status, e.flags], [0, ['DC']]);
      // Measured on Envoy 1.40: the outer connection is gone, but connect_originate's tcp_proxy, still
      // waiting for the CONNECT's answer, does not read its internal downstream and so never sees it
      // close: the stream stays open on the HBONE connection (12 s and counting, by hand) until the
      // peer answers. Then Envoy finds the downstream gone and ends the stream.
      assert.equal(tunnel()?.closed, false, 'the CONNECT is still open when the DC line is written');
      for (const p of live) p.wakeUp();
      await waitFor(live, 'the CONNECT stream ended once answered', () =>
        tunnel()?.closed ? true : undefined,
      );
    });
  },
);
