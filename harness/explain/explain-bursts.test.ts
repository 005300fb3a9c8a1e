import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LifecycleEvent } from '../../clusters/events.ts';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import { explainBurst, formatIdle, parseDeadlineFigures } from './explain-bursts.ts';

const failure = (startMs: number): { startMs: number; entry: ParsedAccessLog } => ({
  startMs,
  entry: {
    startWallMs: startMs,
    status: 503,
    flags: ['UC'],
    details: '',
    durationMs: 5,
    upstream: '',
    attempts: 1,
  },
});
const deadline: LifecycleEvent = {
  atMs: 10_000,
  kind: 'drain-deadline',
  source: 'container-log',
  object: 'istio-system/ztunnel-a',
  detail:
    '2026-11-23T08:11:02.720Z info  ztunnel drain deadline reached instance=ztunnel-a connections=72 in_flight=3',
};

describe('burst explanations', () => {
  it('reads the figures of a drain-deadline line', () => {
    assert.deepEqual(parseDeadlineFigures(deadline.detail), { connections: 72, inFlight: 3 });
    assert.equal(parseDeadlineFigures('drain started connections=3'), undefined);
    assert.deepEqual(
      parseDeadlineFigures(
        'drain deadline reached instance="ztunnel-a" connections=72 in_flight=3 on_unread=40 in_flight_elsewhere=1 transport_unknown=0 queue_read_ms=4',
      ),
      { connections: 72, inFlight: 3, closeKinds: { onUnread: 40, inFlightElsewhere: 1, unknown: 0 } },
    );
  });

  it('a deadline burst splits its failures at the drop and measures the gateway reaction', () => {
    const burst = {
      startMs: 9_900,
      durationMs: 200,
      failures: 5,
      cause: { atMs: 10_000, kind: 'drain-deadline', object: 'istio-system/ztunnel-a' },
    };
    const failures = [9_990, 9_995, 10_001, 10_020, 10_042].map(failure);
    const e = explainBurst(burst, [deadline], failures);
    assert.equal(e.mechanism, 'drain-deadline');
    assert.deepEqual(
      [e.gatewayFailures, e.failedBeforeDrop, e.failedAfterDrop, e.gatewayReactionMs],
      [5, 2, 3, 42],
    );
    assert.deepEqual([e.droppedConnections, e.droppedInFlight], [72, 3]);
    assert.match(e.text, /dropped 72 connections .* \(3 with a request in flight inside it\)/);
  });

  it("names a ztunnel's listener close, a workload pod going away, and what nothing explains", () => {
    const burst = (kind: string, object: string) => ({
      startMs: 0,
      durationMs: 100,
      failures: 1,
      cause: { atMs: 0, kind, object },
    });
    assert.equal(
      explainBurst(burst('sigterm', 'istio-system/ztunnel-a'), [], []).mechanism,
      'listener-close',
    );
    assert.equal(
      explainBurst(burst('del-workload', 'default/httpbin-x'), [], []).mechanism,
      'pod-termination',
    );
    assert.equal(
      explainBurst({ startMs: 0, durationMs: 100, failures: 1 }, [], []).mechanism,
      'unattributed',
    );
  });

  it("says an unexplained 503 UC's connection idle time, derived, and unknown where the log cannot tell", () => {
    const uc = (startMs: number, idleMs?: number, tunnel = false) => {
      const f = failure(startMs);
      return {
        ...f,
        entry: {
          ...f.entry,
          connectionId: startMs,
          ...(idleMs === undefined ? {} : { connectionIdleMs: idleMs }),
          ...(tunnel
            ? {
                tunnel: { startWallMs: startMs, flags: ['UF'], reason: 'tunnel_response:503', authority: '' },
              }
            : {}),
        },
      };
    };
    assert.deepEqual([formatIdle(uc(0, 96).entry), formatIdle(uc(0).entry)], ['0.096 s', 'unknown']);
    const burst = { startMs: 0, durationMs: 500, failures: 7 };
    // The refused CONNECT (a new tunnel) is left out; four shown, the fifth counted.
    const failures = [uc(0, 96), uc(1), uc(2, undefined, true), uc(3, 0), uc(4, 4100), uc(5, 7)];
    const e = explainBurst(burst, [], failures);
    assert.equal(e.mechanism, 'unattributed');
    assert.match(
      e.text,
      /had sat idle 0\.096 s, unknown, 0\.000 s, 4\.100 s \(\+1 more\) \(derived from Envoy's access log: since the previous request on the connection ended, a lower bound; unknown where no earlier request on it was logged\)$/,
    );
    const race = explainBurst(burst, [], [uc(0, 4990), uc(1, 5003)]);
    assert.equal(race.mechanism, 'keep-alive-race');
    assert.match(race.text, /idle 4\.990-5\.003 s \(derived from Envoy's access log/);
    // An unknown idle time is no race (not read as 0, nor as long).
    assert.equal(explainBurst(burst, [], [uc(0)]).mechanism, 'unattributed');
  });
});
