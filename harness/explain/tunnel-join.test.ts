import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAccessLogLine } from '../../mesh/xds/access-log.ts';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import { GATEWAY_LOG_LINES } from './envoy-log.fixture.ts';
import { joinTunnelFailures, parseTunnelFailureLine, TUNNEL_SLACK_MS } from './tunnel-join.ts';
import type { TunnelFailure } from './tunnel-join.ts';

const failures = GATEWAY_LOG_LINES.map((l) => parseAccessLogLine(l)).filter(
  (e): e is ParsedAccessLog => e !== undefined && e.flags.length > 0,
);
const tunnels = GATEWAY_LOG_LINES.map((l) => parseTunnelFailureLine(l)).filter(
  (t): t is TunnelFailure => t !== undefined,
);

describe("Envoy's [connect_originate] lines", () => {
  it('reads the time, flags, reason and authority of a real line', () => {
    assert.deepEqual(
      parseTunnelFailureLine(
        '[connect_originate] 2026-11-24T14:30:53.644Z UF,URX "tunnel_response:503" upstream=127.157.2.3:15008 authority=127.157.2.3:8080',
      ),
      {
        startWallMs: Date.parse('2026-11-24T14:30:53.644Z'),
        flags: ['UF', 'URX'],
        reason: 'tunnel_response:503',
        authority: '127.157.2.3:8080',
      },
    );
  });

  it('ignores every other line of the container log', () => {
    const others = GATEWAY_LOG_LINES.filter((l) => !l.startsWith('[connect_originate]'));
    assert.ok(others.length > 10);
    for (const line of [...others, '[connect_originate] not-a-time UF "x" upstream=a authority=b'])
      assert.equal(parseTunnelFailureLine(line), undefined, line);
  });
});

/**
 * An Istio control plane's gateway (istiod at istio.io/istio v0.0.0-20260827124520-eed52ebb66ad,
 * Istio's gateway chart, meshConfig accessLogEncoding JSON with our format) on kind, E2
 * (2026-11-27): the tunnel's line is JSON too, at the same millisecond as its request's 503 UC.
 */
const ISTIO_TUNNEL_LINE =
  '{"attempts":1,"authority":null,"bytes_received":0,"bytes_sent":0,"connection_id":1266,"connection_termination_details":null,"downstream_local_address":"10.244.2.16:8080","downstream_remote_address":"envoy://internal_client_address/","duration":1,"gateway_before_upstream_us":null,"method":null,"past_gateway_us":null,"path":null,"protocol":null,"request_id":null,"requested_server_name":null,"response_code":0,"response_code_details":null,"response_flags":"UF,URX","route_name":null,"start_time":"2026-11-27T14:33:05.513Z","upstream_cluster":"connect_originate","upstream_connection_id":1132,"upstream_host":"10.244.2.16:15008","upstream_local_address":null,"upstream_service_time":null,"upstream_transport_failure_reason":"tunnel_response:503","user_agent":null,"x_forwarded_for":null}';
const ISTIO_UC_LINE =
  '{"attempts":1,"authority":"httpbin.ztunnel-harness-20261127-143248-2596.ztunnel-harness.test","bytes_received":0,"bytes_sent":95,"connection_id":1223,"connection_termination_details":null,"downstream_local_address":"10.244.2.4:80","downstream_remote_address":"10.244.1.20:58198","duration":1,"gateway_before_upstream_us":794,"method":"GET","past_gateway_us":null,"path":"/status/418","protocol":"HTTP/1.1","request_id":"145652e4-4d5d-4e47-b470-4ca50fa1f93f","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":null,"start_time":"2026-11-27T14:33:05.513Z","upstream_cluster":"outbound|8000||httpbin.ztunnel-harness-20261127-143248-2596.svc.cluster.local","upstream_connection_id":1265,"upstream_host":"envoy://connect_originate/10.244.2.16:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"10.244.1.20"}';

describe("an Istio control plane's gateway: the tunnel line in JSON", () => {
  it('reads it as a failed tunnel, not as a request, and ties it to its 503 UC', () => {
    const tunnel = parseTunnelFailureLine(ISTIO_TUNNEL_LINE);
    assert.deepEqual(tunnel, {
      startWallMs: Date.parse('2026-11-27T14:33:05.513Z'),
      flags: ['UF', 'URX'],
      reason: 'tunnel_response:503',
      authority: '10.244.2.16:8080',
    });
    assert.equal(parseTunnelFailureLine(ISTIO_UC_LINE), undefined);
    const failure = parseAccessLogLine(ISTIO_UC_LINE);
    assert.ok(failure && tunnel);
    assert.deepEqual([...joinTunnelFailures([failure], [tunnel])], [[failure, tunnel]]);
    // A JSON line of another cluster, or without flags, is no tunnel failure.
    assert.equal(parseTunnelFailureLine(ISTIO_TUNNEL_LINE.replace('"UF,URX"', '"-"')), undefined);
    assert.equal(parseTunnelFailureLine('{"upstream_cluster":"connect_originate", not json'), undefined);
  });
});

describe('joining tunnel failures to failed requests', () => {
  it("ties each of the run's 11 refused CONNECTs to its 503 UC; the 12th failure had an open tunnel", () => {
    assert.deepEqual([failures.length, tunnels.length], [12, 11]);
    const joined = joinTunnelFailures(failures, tunnels);
    assert.equal(joined.size, 11);
    const alone = failures.filter((f) => !joined.has(f));
    // 14:30:53.584, on upstream connection 323, which had carried a request 96 ms before.
    assert.deepEqual(
      alone.map((f) => [new Date(f.startWallMs).toISOString(), f.connectionId]),
      [['2026-11-24T14:30:53.584Z', 323]],
    );
    for (const [f, t] of joined) {
      assert.equal(t.authority, f.upstream);
      assert.ok(Math.abs(t.startWallMs - f.startWallMs) <= TUNNEL_SLACK_MS);
    }
    // Envoy logged the tunnel of the request at 54.364 a millisecond later, at 54.365.
    const late = failures.find((f) => f.startWallMs === Date.parse('2026-11-24T14:30:54.364Z'));
    assert.equal(late && joined.get(late)?.startWallMs, Date.parse('2026-11-24T14:30:54.365Z'));
  });

  it('needs the same authority and a start inside the request, and uses each tunnel line once', () => {
    const [first] = failures.filter((f) => f.upstream === '127.157.2.3:8080' && f.durationMs === 6);
    assert.ok(first);
    const tunnel = (dMs: number, authority = first.upstream): TunnelFailure => ({
      startWallMs: first.startWallMs + dMs,
      flags: ['UF', 'URX'],
      reason: 'tunnel_response:503',
      authority,
    });
    const cases: [string, TunnelFailure[], number | undefined][] = [
      ['another endpoint', [tunnel(0, '127.157.2.2:8080')], undefined],
      ['long before the request', [tunnel(-50)], undefined],
      ['just before (slack)', [tunnel(-TUNNEL_SLACK_MS)], -TUNNEL_SLACK_MS],
      ['inside its 6 ms, after a retry back-off', [tunnel(6)], 6],
      ['after it ended', [tunnel(6 + TUNNEL_SLACK_MS + 1)], undefined],
      ['the nearest of two', [tunnel(4), tunnel(1)], 1],
    ];
    for (const [name, lines, expected] of cases) {
      const got = joinTunnelFailures([first], lines).get(first);
      assert.equal(got === undefined ? undefined : got.startWallMs - first.startWallMs, expected, name);
    }
    const twin = { ...first };
    assert.equal(joinTunnelFailures([first, twin], [tunnel(0)]).size, 1, 'one line, one failure');
  });

  it('leaves out failures with no upstream or no UC/UF', () => {
    const [f] = failures;
    assert.ok(f);
    const t: TunnelFailure = { startWallMs: f.startWallMs, flags: ['UF'], reason: 'x', authority: '' };
    assert.equal(joinTunnelFailures([{ ...f, upstream: '' }], [t]).size, 0);
    assert.equal(joinTunnelFailures([{ ...f, flags: ['DC'] }], [{ ...t, authority: f.upstream }]).size, 0);
  });
});
