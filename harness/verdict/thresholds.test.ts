import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runFigures } from './run-figures.ts';
import type { RunFigures } from './run-figures.ts';
import { evaluateThresholds, formatThresholdResults, parseThreshold } from './thresholds.ts';

const figures: RunFigures = {
  ...runFigures({ tally: undefined, bursts: [], droppedIterations: 0 }),
  requests: 1000,
  ok: 997,
  failed: 3,
  failed_rate: 0.003,
  http_503: 3,
  p99_ms: 612.4,
  max_burst_ms: 300,
};

it('reads k6-style thresholds and judges the summary figures, naming each with its value', () => {
  const thresholds = ['failed_rate < 1e-2', 'p99_ms<500', 'max_burst_ms<=500', 'http_503==3', 'p50_ms<1'].map(
    (t) => parseThreshold(t),
  );
  const results = evaluateThresholds(thresholds, figures);
  assert.deepEqual(
    results.map((r) => [r.threshold.text, r.actual, r.ok]),
    [
      ['failed_rate<1e-2', 0.003, true],
      ['p99_ms<500', 612.4, false],
      ['max_burst_ms<=500', 300, true],
      ['http_503==3', 3, true],
      ['p50_ms<1', NaN, false], // a figure the run lacks fails its threshold
    ],
  );
  assert.equal(
    formatThresholdResults(results.slice(0, 2)),
    'failed_rate<1e-2: 0.003 ok; p99_ms<500: 612.4 FAILED',
  );
});
