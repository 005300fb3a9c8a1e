import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  evaluateThresholds,
  formatThresholdResults,
  parseThreshold,
  thresholdFigures,
} from './thresholds.ts';

const row = { requests: 1000, ok: 997, http_503: 3, p99_ms: '612.40', max_burst_ms: 300, p50_ms: '' };

it('reads k6-style thresholds and judges the summary figures, naming each with its value', () => {
  const thresholds = ['failed_rate < 1e-2', 'p99_ms<500', 'max_burst_ms<=500', 'http_503==3', 'p50_ms<1'].map(
    (t) => parseThreshold(t),
  );
  const results = evaluateThresholds(thresholds, thresholdFigures(row));
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
