// Vectors from fortio/fortio stats/stats_test.go (TestHistogram, TestPercentiles1,
// TestHistogramExport1): our port must give fortio's own numbers.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { calcPercentile, createFortioHistogram } from './fortio-histogram.ts';

const round5 = (v: number) => Math.round(v * 100_000) / 100_000;

it('TestHistogram: percentiles across buckets of 10', () => {
  const h = createFortioHistogram(0, 10);
  for (const v of [1, 251, 501, 751, 1001]) h.record(v);
  const e = h.export();
  assert.equal(e.Avg, 501);
  const expected: [number, number][] = [
    [-1, 1],
    [0, 1],
    [20, 1],
    [20.01, 250.025],
    [39.99, 299.975],
    [40, 300],
    [50, 550],
    [75, 775],
    [90, 1000.5],
    [99, 1000.95],
    [99.9, 1000.995],
    [100, 1001],
    [101, 1001],
  ];
  for (const [p, v] of expected) assert.equal(round5(calcPercentile(e, p)), v, `p${String(p)}`);
});

it('TestPercentiles1: three points', () => {
  const h = createFortioHistogram(0, 10);
  for (const v of [10, 20, 30]) h.record(v);
  const e = h.export();
  const expected: [number, number][] = [
    [33.34, 10.002],
    [50, 15],
    [66.66, 19.998],
    [66.67, 20.001],
    [75, 22.5],
    [99, 29.7],
    [99.9, 29.97],
  ];
  for (const [p, v] of expected) assert.equal(round5(calcPercentile(e, p)), v, `p${String(p)}`);
});

it('TestHistogramExport1: the exported JSON, field for field', () => {
  const h = createFortioHistogram(0, 10);
  assert.deepEqual(h.export().Data, []);
  for (const v of [-137.4, 251, 501, 751, 1001.67]) h.record(v);
  const e = h.export([50, 99, 99.9]);
  assert.deepEqual(
    { ...e, Sum: round5(e.Sum), Avg: round5(e.Avg), StdDev: round5(e.StdDev) },
    {
      Count: 5,
      Min: -137.4,
      Max: 1001.67,
      Sum: 2367.27,
      Avg: 473.454,
      StdDev: round5(394.8242896074151),
      Data: [
        { Start: -137.4, End: 0, Percent: 20, Count: 1 },
        { Start: 250, End: 300, Percent: 40, Count: 1 },
        { Start: 500, End: 600, Percent: 60, Count: 1 },
        { Start: 700, End: 800, Percent: 80, Count: 1 },
        { Start: 1000, End: 1001.67, Percent: 100, Count: 1 },
      ],
      Percentiles: [
        { Percentile: 50, Value: 550 },
        { Percentile: 99, Value: 1001.5865 },
        { Percentile: 99.9, Value: 1001.66165 },
      ],
    },
  );
});
