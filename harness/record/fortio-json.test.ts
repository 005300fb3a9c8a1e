import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createFortioHistogram } from '../tally/fortio-histogram.ts';
import { buildFortioResult, fortioId, goDuration } from './fortio-json.ts';

it("durations and ids as fortio writes them (Go's Duration.String, GenID)", () => {
  assert.equal(goDuration(60), '1m0s');
  assert.equal(goDuration(200), '3m20s');
  assert.equal(goDuration(12), '12s');
  assert.equal(goDuration(0.5), '500ms');
  assert.equal(goDuration(3725), '1h2m5s');
  assert.equal(
    fortioId(Date.UTC(2026, 10, 23, 13, 5, 9), 'ztunnel-harness E1  c=100'),
    '2026-11-23-130509_ztunnel_harness_E1_c_100',
  );
});

it('a run as fortio JSON: max QPS, -1 for no response, nanosecond duration', () => {
  const h = createFortioHistogram();
  for (const s of [0.001, 0.002, 0.004]) h.record(s);
  const result = buildFortioResult({
    labels: 'x',
    startWallMs: 0,
    qps: 0,
    durationS: 60,
    actualDurationMs: 1500,
    connections: 100,
    url: 'http://gw/status/418',
    byStatus: new Map([
      [418, 2],
      [0, 1],
    ]),
    durations: h.export([50]),
    errors: createFortioHistogram().export(),
    version: 'test',
  });
  assert.equal(result['RequestedQPS'], 'max');
  assert.equal(result['RequestedDuration'], '1m0s');
  assert.equal(result['ActualDuration'], 1_500_000_000);
  assert.equal(result['ActualQPS'], 2);
  assert.deepEqual(result['RetCodes'], { '-1': 1, '418': 2 });
  assert.equal(result['RunType'], 'HTTP');
});
