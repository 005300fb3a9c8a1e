import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import { accountDeadline, formatDeadlineAccount, projectCount } from './deadline-accounting.ts';
import { deadlineRows } from '../record/deadline-rows.ts';
import type { TimedEntry } from './deadline-accounting.ts';

const D = 50_000;
const at = (startMs: number, connectionId: number, ip: string, status = 200, pastUs = 5_000): TimedEntry => {
  const entry: ParsedAccessLog = {
    startWallMs: startMs,
    status,
    flags: status === 200 ? [] : ['UC'],
    details: '',
    durationMs: 5,
    upstream: `${ip}:8080`,
    attempts: 1,
    connectionId,
    ...(status === 200 ? { pastGatewayUs: pastUs } : {}),
  };
  return { startMs, entry };
};
const every = (fromMs: number, toMs: number, stepMs: number, f: (t: number) => TimedEntry): TimedEntry[] => {
  const out: TimedEntry[] = [];
  for (let t = fromMs; t < toMs; t += stepMs) out.push(f(t));
  return out;
};
const nodeOfIp = new Map([
  ['127.0.2.1', 'node-1'],
  ['127.0.2.2', 'node-2'],
]);

describe('a drain deadline accounted for: rate x (T_past + L)', () => {
  const failures = [
    at(D - 3, 1, '127.0.2.1', 503),
    at(D + 4, 1, '127.0.2.1', 503),
    at(D + 20, 1, '127.0.2.1', 503),
  ];
  const entries = [
    // Connections 1 and 2 to node-1's pod: used until the deadline, never after (closed by it).
    ...every(D - 5_000, D, 10, (t) => at(t, 1, '127.0.2.1')),
    ...every(D - 5_000, D, 10, (t) => at(t, 2, '127.0.2.1')),
    // Connection 3 to the same pod goes on after it (the new ztunnel's): not closed by it.
    ...every(D - 1_000, D + 3_000, 10, (t) => at(t, 3, '127.0.2.1', 200, 90_000)),
    // Connection 4 is to node-2's pod: another ztunnel.
    ...every(D - 5_000, D + 3_000, 10, (t) => at(t, 4, '127.0.2.2', 200, 90_000)),
    ...failures,
  ];

  it('takes rate and T_past from the closed connections only, L from the failures after the drop', () => {
    const a = accountDeadline({ deadlineMs: D, node: 'node-1', entries, nodeOfIp, failures });
    assert.equal(a.closedConnections, 2);
    // 2 connections x 100/s each, over the 2 s window (the failure at D-3 on connection 1 counts too).
    assert.equal(a.ratePerS, 200.5);
    assert.equal(a.pastGatewayMs, 5);
    // Connection 1's last failure 20 ms after the drop, connection 2 none: mean 10 ms.
    assert.equal(a.reactionMs, 10);
    assert.ok(Math.abs(a.predicted - 3.0075) < 1e-9, String(a.predicted));
    assert.deepEqual(a.interval, [0, 7]);
    assert.equal(a.inside, true);
    assert.match(
      formatDeadlineAccount(a),
      /3 lost, inside 0-7 \(95 %\): predicted 3\.0; 201 req\/s on the 2 connections/,
    );
  });

  it("bounds the count between a FIN (only ztunnel's in-flight lost before the drop) and a reset", () => {
    const a = accountDeadline({
      deadlineMs: D,
      node: 'node-1',
      entries,
      nodeOfIp,
      failures,
      inFlightInside: 1,
    });
    // FIN: 1 inside + 200.5/s x 10 ms = 3.005; reset: 3.0075 as above.
    assert.ok(Math.abs(a.predictedFin - 3.005) < 1e-9, String(a.predictedFin));
    const big = accountDeadline({
      deadlineMs: D,
      node: 'node-1',
      entries: entries.map((e) =>
        e.entry.pastGatewayUs ? { ...e, entry: { ...e.entry, pastGatewayUs: 100_000 } } : e,
      ),
      nodeOfIp,
      failures,
      inFlightInside: 0,
    });
    // Reset: 200.5/s x 110 ms = 22; FIN: 0 + 2 = 2. Three lost: inside the bounds.
    assert.deepEqual(
      [big.predicted.toFixed(2), big.predictedFin.toFixed(2), big.interval, big.inside],
      ['22.05', '2.00', [0, 32], true],
    );
    assert.match(
      formatDeadlineAccount(big),
      /predicted 22\.1 if a reset, 2\.0 if a FIN \(0 inside ztunnel \+ rate x L\)/,
    );
  });

  it("records how ztunnel's close reached the connections, where it saw its sockets", () => {
    const kinds = (onUnread: number, inFlightElsewhere: number, unknown = 0) =>
      accountDeadline({
        deadlineMs: D,
        node: 'node-1',
        entries,
        nodeOfIp,
        failures,
        inFlightInside: 1,
        closeKinds: { connections: 4, onUnread, inFlightElsewhere, unknown },
      });
    const half = kinds(2, 1);
    assert.deepEqual(half.closeKinds, { resetShare: 0.5, inFlightOnFin: 1 });
    assert.match(
      formatDeadlineAccount(half),
      /ztunnel's close: 50 % of the connections on sockets with unread bytes \(RST\), the rest FIN/,
    );
    // The prediction and band do not depend on it (the count follows rate x (T_past + L) either way).
    assert.deepEqual([half.predicted, half.interval], [kinds(0, 0).predicted, kinds(0, 0).interval]);
    // A socket ztunnel could not see: no share.
    assert.equal(kinds(2, 1, 1).closeKinds, undefined);
  });

  it("says OUTSIDE when the count is far from the mechanism's prediction", () => {
    const many = Array.from({ length: 40 }, (_, i) => at(D + 1 + (i % 20), 1, '127.0.2.1', 503));
    const a = accountDeadline({
      deadlineMs: D,
      node: 'node-1',
      entries: [...entries, ...many],
      nodeOfIp,
      failures: many,
    });
    assert.equal(a.inside, false);
    assert.match(formatDeadlineAccount(a), /OUTSIDE/);
  });

  it("measures the path's CPU wait share around the deadline", () => {
    const cpuSamples = [
      { atMs: D + 500, component: 'gw', group: 'gateway', pct: 60, waitPct: 40 },
      { atMs: D + 500, component: 'zt', group: 'ztunnel', pct: 30, waitPct: 10 },
      { atMs: D + 500, component: 'f', group: 'generator', pct: 30, waitPct: 90 },
      { atMs: D - 500, component: 'gw', group: 'gateway', pct: 10, waitPct: 90 },
    ];
    const a = accountDeadline({ deadlineMs: D, node: 'node-1', entries, nodeOfIp, failures, cpuSamples });
    assert.equal(a.cpuWaitShare, 50 / 140);
  });

  it('projects to another rate by scaling every deadline prediction', () => {
    const a = accountDeadline({ deadlineMs: D, node: 'node-1', entries, nodeOfIp, failures });
    assert.ok(Math.abs(projectCount([a, a], 1000, 20_000) - 2 * 3.0075 * 20) < 1e-9);
    assert.equal(projectCount([a], 0, 20_000), 0);
  });
});

describe('deadlines.csv and deadline-trace.csv', () => {
  it('numbers the deadlines and writes their 100 ms buckets around each', () => {
    const failures = [at(D + 4, 1, '127.0.2.1', 503)];
    const entries = [...every(D - 3_000, D, 10, (t) => at(t, 1, '127.0.2.1')), ...failures];
    const account = accountDeadline({
      deadlineMs: D,
      node: 'node-1',
      entries,
      nodeOfIp,
      failures,
      inFlightInside: 0,
    });
    const { deadlines, trace } = deadlineRows(
      [{ atMs: D, object: 'istio-system/ztunnel-a', account }],
      D - 46_000,
    );
    assert.deepEqual(
      [
        deadlines[0]?.['deadline'],
        deadlines[0]?.['t_s'],
        deadlines[0]?.['lost'],
        deadlines[0]?.['in_flight_inside'],
      ],
      [1, '46.000', 1, 0],
    );
    assert.equal(trace.length, 30);
    assert.deepEqual(trace[19], { deadline: 1, from_ms: -100, requests: 10, failed: 0, t_past_ms: '5.000' });
    assert.deepEqual(trace[20], { deadline: 1, from_ms: 0, requests: 1, failed: 1, t_past_ms: '' });
  });
});
