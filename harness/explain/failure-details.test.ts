import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAccessLogLine } from '../../mesh/xds/access-log.ts';
import { GATEWAY_LOG_LINES, SIDECAR_UF_LINE } from './envoy-log.fixture.ts';
import {
  describeFailure,
  failureKindRows,
  formatFailureKinds,
  groupFailureKinds,
} from './failure-details.ts';
import type { EnvoyFailure } from './gateway-access-log.ts';
import { joinTunnelFailures, parseTunnelFailureLine } from './tunnel-join.ts';
import type { TunnelFailure } from './tunnel-join.ts';

/** The run's failures as readGatewayAccessLog gives them: HBONE marked, tunnels joined. */
function runFailures(): EnvoyFailure[] {
  const failures: EnvoyFailure[] = [];
  const tunnels: TunnelFailure[] = [];
  for (const line of GATEWAY_LOG_LINES) {
    const e = parseAccessLogLine(line);
    if (e && e.flags.length > 0)
      failures.push({ ...e, isHbone: line.includes('envoy://connect_originate/') });
    const t = parseTunnelFailureLine(line);
    if (t) tunnels.push(t);
  }
  for (const [f, t] of joinTunnelFailures(failures, tunnels)) f.tunnel = t;
  return failures;
}

const sidecarUf = parseAccessLogLine(SIDECAR_UF_LINE);
const [refused, ...rest] = runFailures().filter((f) => f.tunnel);
const closed = runFailures().find((f) => !f.tunnel);

describe("a failure in Envoy's words", () => {
  it('reads details and the failed tunnel (real lines, and a few details Envoy writes elsewhere)', () => {
    assert.ok(refused?.tunnel && closed && sidecarUf && rest.length === 10);
    const refusedTunnel = refused.tunnel;
    const tunnel = (reason: string): EnvoyFailure => ({ ...closed, tunnel: { ...refusedTunnel, reason } });
    const details = (d: string, isHbone = true): EnvoyFailure => ({ ...closed, details: d, isHbone });
    const table: [string, EnvoyFailure, string, string][] = [
      ['refused CONNECT', refused, 'CONNECT refused by ztunnel', 'tunnel_response:503'],
      [
        'HBONE closed',
        closed,
        'HBONE connection closed with the request in flight',
        'connection_termination',
      ],
      [
        'plain closed',
        { ...closed, isHbone: false },
        'upstream connection closed with the request in flight',
        'connection_termination',
      ],
      [
        'sidecar app gone',
        sidecarUf,
        'upstream refused the connection',
        'delayed_connect_error:_Connection_refused',
      ],
      [
        '15008 refused',
        tunnel('delayed_connect_error:_Connection_refused'),
        "ztunnel's HBONE port refused the connection",
        'delayed_connect_error:_Connection_refused',
      ],
      ['tunnel other', tunnel('TLS_error'), 'HBONE tunnel not opened', 'TLS_error'],
      ['no endpoint', details('no_healthy_upstream'), 'no healthy upstream', 'no_healthy_upstream'],
      [
        'client left',
        details('downstream_remote_disconnect'),
        'the client went away before its answer',
        'downstream_remote_disconnect',
      ],
      [
        'overflow',
        details('upstream_reset_before_response_started{overflow}'),
        'circuit breaker overflow',
        'overflow',
      ],
      [
        'mid-response',
        details('upstream_reset_after_response_started{remote_reset}'),
        'upstream reset mid-response',
        'remote_reset',
      ],
      [
        'new reason',
        details('upstream_reset_before_response_started{some_new_reason}'),
        'upstream reset (some_new_reason)',
        'some_new_reason',
      ],
      ['unknown details', details('filter_said_no'), 'filter_said_no', 'filter_said_no'],
      ['none', details(''), 'no details logged', ''],
    ];
    for (const [name, failure, meaning, evidence] of table)
      assert.deepEqual(describeFailure(failure), { meaning, evidence }, name);
  });

  it("groups the run's 12 failures by kind, most first, and says them in one line", () => {
    const kinds = groupFailureKinds(runFailures());
    assert.deepEqual(
      kinds.map((k) => [k.count, k.status, k.flags, k.tunnelReason]),
      [
        [11, 503, 'UC', 'tunnel_response:503'],
        [1, 503, 'UC', ''],
      ],
    );
    assert.equal(
      formatFailureKinds(kinds),
      '11 CONNECT refused by ztunnel (tunnel_response:503; 503 UC), 1 HBONE connection closed with the request in flight (connection_termination; 503 UC)',
    );
    assert.deepEqual(failureKindRows(kinds)[1], {
      failures: 1,
      status: 503,
      flags: 'UC',
      meaning: 'HBONE connection closed with the request in flight',
      details: 'upstream_reset_before_response_started{connection_termination}',
      tunnel_reason: '',
    });
    assert.ok(closed);
    assert.equal(
      formatFailureKinds(groupFailureKinds([{ ...closed, details: '' }])),
      '1 no details logged (503 UC)',
    );
  });
});
