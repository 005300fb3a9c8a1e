// The real Envoy 1.40 as our control plane configures the gateway (issue 28 item 7), against an
// HBONE peer standing in for ztunnel on two pods: what Envoy does when ztunnel drains (GOAWAY, then
// FIN), when a pod's :15008 refuses, and in plain mode; each outcome read from Envoy's own access
// log as well as from the client and the peer. ../shared/research/envoy-gateway.md section 4 has
// the same measurements made by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ISTIO_DEFAULT_RETRY_ON, ROUTE_POLICY_METADATA } from '../../xds/index.ts';
import { get, podOf, startGatewayScene } from './gateway-scene.ts';
import type { Reply } from './gateway-scene.ts';
import { waitFor } from './observed.ts';
import { envoyMissing } from './proxy-fixture.ts';

const GATEWAY_SAN = 'URI:spiffe://cluster.local/ns/istio-system/sa/istio-ingressgateway';
const RESET_BEFORE_HEADERS = 'upstream_reset_before_response_started{connection_termination}';

describe('Envoy gateway over HBONE (real Envoy, our xDS)', { skip: envoyMissing, timeout: 60_000 }, () => {
  it('GOAWAY: requests in flight finish 200, the next request opens a new HBONE connection', async (t) => {
    const { apps, peers, proxy } = await startGatewayScene(t, '127.112.1');
    const inFlight = ['/hold/a', '/hold/b'].map((path) => get(proxy.ingress, path));
    await waitFor(apps, 'both requests held at the apps', () =>
      apps.arrivals.filter((a) => a.held).length === 2 ? true : undefined,
    );
    const live = peers.flatMap((p) => (p ? [p] : []));
    const goneAway = (await Promise.all(live.map((p) => p.goAway()))).reduce((a, b) => a + b, 0);
    assert.ok(goneAway >= 1, 'the requests in flight hold HBONE sessions');
    const tunnelsBefore = live.map((p) => p.tunnels.length);

    const fresh = await get(proxy.ingress, '/after-goaway');
    assert.equal(fresh.status, 200);
    const sessionsOfNewTunnels = live.flatMap((p, i) =>
      p.tunnels.slice(tunnelsBefore[i]).map((tunnel) => p.sessions[tunnel.sessionId - 1]),
    );
    assert.equal(sessionsOfNewTunnels.length, 1, 'one CONNECT for the new request');
    const [session] = sessionsOfNewTunnels;
    assert.ok(session);
    assert.equal(session.goneAway, false, 'on a session opened after the GOAWAY');
    assert.equal(session.clientSan, GATEWAY_SAN, "with the gateway's SDS certificate");

    apps.release('/hold/a');
    apps.release('/hold/b');
    assert.deepEqual(
      (await Promise.all(inFlight)).map((r) => r.status),
      [200, 200],
    );
    const logged = await Promise.all(['/hold/a', '/hold/b', '/after-goaway'].map((p) => proxy.logFor(p)));
    for (const e of logged) assert.deepEqual([e.status, e.flags, e.attempts], [200, [], 1], e.path);
    const [a, b, after] = logged;
    assert.ok(after?.connectionId !== undefined);
    assert.ok(![a?.connectionId, b?.connectionId].includes(after.connectionId), 'a new upstream connection');
  });

  for (const reset of [false, true])
    it(`FIN before response headers: ${reset ? 'with `reset` in retry_on, retried once and answered (previous_hosts)' : "503 UC, not retried by Istio's default policy"}`, async (t) => {
      const retryOn = reset ? `${ISTIO_DEFAULT_RETRY_ON},reset` : ISTIO_DEFAULT_RETRY_ON;
      const { apps, mesh, peers, proxy } = await startGatewayScene(t, reset ? '127.112.3' : '127.112.2', {
        metadata: { [ROUTE_POLICY_METADATA]: JSON.stringify({ retries: { attempts: 2, retryOn } }) },
      });
      const reply = get(proxy.ingress, '/hold/fin');
      const first = await waitFor(apps, 'the request at an app', () =>
        apps.arrivals.find((a) => a.path === '/hold/fin'),
      );
      const peer = peers[mesh.podIps.indexOf(first.pod)];
      assert.ok(peer);
      assert.equal(peer.destroySessions(), 1, 'FIN on the HBONE connection carrying the request');
      const { status, body } = await reply;
      const e = await proxy.logFor('/hold/fin');
      if (!reset) {
        assert.equal(status, 503);
        assert.match(body, /reset before headers\. reset reason: connection termination/);
        assert.deepEqual([e.status, e.flags, e.details, e.attempts], [503, ['UC'], RESET_BEFORE_HEADERS, 1]);
        assert.equal(apps.count('/hold/fin'), 1, 'no second attempt reached an app');
        return;
      }
      const other = mesh.podIps.find((ip) => ip !== first.pod);
      // previous_hosts re-picks at most host_selection_retry_max_attempts (5, Istio's) times and
      // LEAST_REQUEST picks at random between two idle hosts: the retry lands on the same pod when
      // all 6 picks chose it (1 in 64). Either way the retry happened and was answered by the pod
      // it went to, over a new HBONE connection.
      const retriedOn = podOf({ status, body });
      if (retriedOn !== other) t.diagnostic('previous_hosts: all 6 picks chose the first pod (1 in 64)');
      assert.ok(retriedOn === other || retriedOn === first.pod, `answered by ${String(retriedOn)}`);
      assert.deepEqual([status, e.status, e.flags, e.attempts], [200, 200, [], 2]);
      assert.equal(e.upstream, `${String(retriedOn)}:8080`);
      assert.deepEqual(
        apps.arrivals.map((a) => a.pod),
        [first.pod, retriedOn],
        'the retry reached the pod Envoy chose',
      );
    });

  it("a pod's :15008 refusing: retried on the other pod (connect-failure + previous_hosts), attempts 2", async (t) => {
    const { mesh, proxy } = await startGatewayScene(t, '127.112.4', { peerOn: [1] });
    const [refusing, serving] = mesh.podIps;
    // LEAST_REQUEST picks at random between idle hosts: 24 requests try the refusing pod first with
    // probability 1 - 2^-24; each of those must be answered by the other.
    const paths = Array.from({ length: 24 }, (_, i) => `/refused/${String(i)}`);
    const replies: Reply[] = [];
    for (const path of paths) replies.push(await get(proxy.ingress, path));
    const logged = await Promise.all(paths.map((p) => proxy.logFor(p)));
    const attempts = logged.map((e) => e.attempts);
    t.diagnostic(`statuses: ${replies.map((r) => r.status).join(',')}; attempts: ${attempts.join(',')}`);
    // Istio's policy (2 retries, previous_hosts with 5 reselections) sends a retry back to the
    // refusing pod when LEAST_REQUEST picked it on all 6 tries: 1 in 64 retries; both retries so:
    // a 503 UC after 3 refused attempts. Anything else is a defect.
    logged.forEach((e, i) => {
      const reply = replies[i];
      if (reply?.status === 200) {
        assert.deepEqual([podOf(reply), e.upstream, e.flags], [serving, `${serving}:8080`, []], paths[i]);
      } else {
        assert.deepEqual(
          [reply?.status, e.status, e.attempts, e.upstream],
          [503, 503, 3, `${refusing}:8080`],
          `${String(paths[i])}: ${JSON.stringify(e)}`,
        );
      }
    });
    assert.ok(
      replies.filter((r) => r.status === 200).length >= 20,
      `statuses: ${replies.map((r) => r.status).join(',')}`,
    );
    assert.ok(attempts.includes(2), `attempts: ${attempts.join(',')}`);
    assert.ok(
      attempts.every((n) => n >= 1 && n <= 3),
      `attempts: ${attempts.join(',')}`,
    );
    // Counted twice: connect_originate's own line (Istio logs only UF there) per refused attempt,
    // and the attempts beyond the first in the gateway's log (all three for a 503).
    const refusals = proxy.lines.filter(
      (l) => l.startsWith('[connect_originate]') && l.includes(`upstream=${refusing}:15008`),
    );
    assert.equal(
      refusals.length,
      logged.reduce((n, e) => n + (e.status === 200 ? e.attempts - 1 : e.attempts), 0),
      refusals.join('\n'),
    );
    assert.ok(
      refusals.every((l) => /UF.*Connection_refused/.test(l)),
      refusals[0],
    );
  });

  it('plain mode (DISABLE_HBONE_SEND): straight to <pod>:8080, no HBONE', async (t) => {
    const { mesh, peers, proxy } = await startGatewayScene(t, '127.112.5', {
      metadata: { DISABLE_HBONE_SEND: 'true' },
    });
    const reply = await get(proxy.ingress, '/plain');
    assert.equal(reply.status, 200);
    const e = await proxy.logFor('/plain');
    assert.deepEqual([e.status, e.flags, e.attempts], [200, [], 1]);
    assert.equal(e.upstream, `${String(podOf(reply))}:8080`);
    assert.ok(mesh.podIps.includes(podOf(reply) ?? ''));
    assert.deepEqual(
      peers.map((p) => p?.sessions.length),
      [0, 0],
    );
  });
});
