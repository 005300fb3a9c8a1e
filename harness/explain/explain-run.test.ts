import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LifecycleEvent } from '../../clusters/events.ts';
import { gatewayLogDir } from './envoy-log.fixture.ts';
import { explainRun, formatGatewayEvidence } from './explain-run.ts';

/** The run's events for the two pods whose terminations the fixture's failures fall in (wall clock). */
const ev = (
  wall: string,
  kind: LifecycleEvent['kind'],
  pod: string,
  node: string,
  detail?: string,
): LifecycleEvent => ({
  atMs: Date.parse(wall),
  kind,
  source: 'api-server',
  object: `default/${pod}`,
  node,
  ...(detail === undefined ? {} : { detail }),
});
const events: LifecycleEvent[] = [
  ev(
    '2026-11-24T14:30:43.908Z',
    'pod-created',
    'httpbin-b167ff60-4p8hl',
    'node-2',
    '127.157.2.2 (app 127.157.128.2)',
  ),
  ev(
    '2026-11-24T14:30:43.908Z',
    'pod-created',
    'httpbin-b167ff60-gqqk4',
    'node-1',
    '127.157.2.3 (app 127.157.128.3)',
  ),
  ev('2026-11-24T14:30:53.525Z', 'pod-deleting', 'httpbin-b167ff60-gqqk4', 'node-1'),
  ev('2026-11-24T14:30:53.582Z', 'sigterm', 'httpbin-b167ff60-gqqk4', 'node-1'),
  ev('2026-11-24T14:30:54.135Z', 'pod-deleting', 'httpbin-b167ff60-4p8hl', 'node-2'),
  ev('2026-11-24T14:30:54.192Z', 'sigterm', 'httpbin-b167ff60-4p8hl', 'node-2'),
];

describe("a run's explanation from Envoy's log", () => {
  it("ends each burst's explanation with what Envoy said about its failures", async (t) => {
    const run = await explainRun({ logDir: await gatewayLogDir(t), events, wallOffsetMs: 0 });
    assert.deepEqual(
      run.bursts.map((b) => [b.cause?.object, b.failures]),
      [
        ['default/httpbin-b167ff60-gqqk4', 4],
        ['default/httpbin-b167ff60-4p8hl', 8],
      ],
    );
    const [first, second] = run.explanations;
    assert.ok(first && second);
    assert.equal(first.mechanism, 'pod-termination');
    assert.match(
      first.text,
      /; Envoy: 3 CONNECT refused by ztunnel \(tunnel_response:503; 503 UC\), 1 HBONE connection closed with the request in flight \(connection_termination; 503 UC\)$/,
    );
    assert.match(second.text, /; Envoy: 8 CONNECT refused by ztunnel \(tunnel_response:503; 503 UC\)$/);
    assert.deepEqual(run.gateway, { requests: 13, failures: 12, warmupFailures: 0 });
    assert.equal(
      formatGatewayEvidence(run.evidence),
      "gateway failures by Envoy's response details: 11 CONNECT refused by ztunnel (tunnel_response:503; 503 UC), 1 HBONE connection closed with the request in flight (connection_termination; 503 UC); HBONE tunnels not opened: 11, 11 behind a failed request",
    );
  });

  it("sets apart the failures during the generator's warmup, which it does not count", async (t) => {
    const dir = await gatewayLogDir(t);
    const all = await explainRun({ logDir: dir, events, wallOffsetMs: 0 });
    const starts = all.bursts.flatMap((b) => b.failuresList.map((f) => f.startMs)).sort((a, b) => a - b);
    const second = starts[1] ?? 0;
    // Counting from the second failure's start: the first was a warmup call.
    const run = await explainRun({ logDir: dir, events, wallOffsetMs: 0, countedFromWallMs: second + 5 });
    assert.deepEqual(run.gateway, { requests: 13, failures: 11, warmupFailures: 1 });
    assert.equal(
      run.bursts.reduce((n, b) => n + b.failures, 0),
      11,
    );
  });

  it('accounts a drain deadline only with a second of load after it, and lists the one closer to the end', async (t) => {
    const deadline = (wall: string, pod: string): LifecycleEvent => ({
      atMs: Date.parse(wall),
      kind: 'drain-deadline',
      source: 'container-log',
      object: `istio-system/${pod}`,
      node: 'node-1',
    });
    const early = deadline('2026-11-24T14:30:50.000Z', 'ztunnel-early');
    const late = deadline('2026-11-24T14:30:54.400Z', 'ztunnel-late');
    const load = {
      startMs: Date.parse('2026-11-24T14:30:40.000Z'),
      endMs: Date.parse('2026-11-24T14:30:55.000Z'),
    };
    const run = await explainRun({
      logDir: await gatewayLogDir(t),
      events: [...events, early, late],
      wallOffsetMs: 0,
      load,
    });
    assert.deepEqual(
      run.accounts.map((a) => a.deadline.object),
      ['istio-system/ztunnel-early'],
    );
    assert.deepEqual(
      run.unaccounted.map((u) => [u.deadline.object, u.loadAfterMs]),
      [['istio-system/ztunnel-late', 600]],
    );
    // A deadline past the load's end is neither: it costs nothing.
    const after = await explainRun({
      logDir: await gatewayLogDir(t),
      events: [...events, deadline('2026-11-24T14:30:56.000Z', 'ztunnel-after')],
      wallOffsetMs: 0,
      load,
    });
    assert.deepEqual([after.accounts.length, after.unaccounted.length], [0, 0]);
  });

  it('says none when the gateway failed nothing', () => {
    assert.equal(
      formatGatewayEvidence({ failureKinds: [], tunnelFailures: 0, tunnelFailuresJoined: 0 }),
      "gateway failures by Envoy's response details: none",
    );
  });
});
