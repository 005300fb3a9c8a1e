import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LifecycleEvent } from '../../clusters/events.ts';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import { explainBurst, parseDeadlineFigures } from './explain-bursts.ts';

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
});
