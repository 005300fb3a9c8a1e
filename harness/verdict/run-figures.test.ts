import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OUTCOME_CLASSES } from '../tally/index.ts';
import type { RecordTally } from '../tally/index.ts';
import { runFigures } from './run-figures.ts';
import { buildSummaryRow, EMPTY_FACTS } from '../record/run-row.ts';
import { EVERY_FIELD } from '../config/test/experiment-fixtures.ts';

/** A tally as far as the figures read it: totals by class and the latency quantiles. */
function tallyOf(counts: Partial<Record<string, number>>): RecordTally {
  const totals = Object.fromEntries(OUTCOME_CLASSES.map((c) => [c, counts[c] ?? 0]));
  const total = Object.values(totals).reduce((a, b) => a + b, 0);
  return {
    total,
    timeline: { totals: () => totals },
    latency: { p50Ms: 1.234, p99Ms: 499.996 },
  } as unknown as RecordTally;
}

test('the figures fold classes as the row does and the row renders them', () => {
  const tally = tallyOf({ ok: 90, http_503_uc: 4, http_503: 1, h2: 2, other: 1, reset: 2 });
  const bursts = [{ startMs: 0, durationMs: 321, failures: 6 }];
  const f = runFigures({ tally, bursts, droppedIterations: 3 });
  assert.deepEqual(
    [f.requests, f.ok, f.failed, f.http_503, f.http_503_uc, f.h2, f.other, f.reset, f.bursts, f.max_burst_ms],
    [100, 90, 10, 5, 4, 2, 3, 2, 1, 321],
  );
  assert.equal(f.failed_rate, 0.1);
  assert.equal(f.success_rate, 0.9); // Istio's restart tests' figure
  // Judged on the measured value; the row shows it to two decimals.
  assert.equal(f.p99_ms, 499.996);
  const row = buildSummaryRow(EVERY_FIELD, tally, bursts, { ...EMPTY_FACTS, droppedIterations: 3 });
  for (const column of ['requests', 'ok', 'http_503', 'http_503_uc', 'h2', 'other', 'reset', 'bursts'])
    assert.equal(row[column], f[column as keyof typeof f], column);
  assert.equal(row['p99_ms'], '500.00');
  // E3 counts its long-lived connections as failed too.
  assert.equal(runFigures({ tally, bursts, droppedIterations: 0, failed: 13 }).failed_rate, 0.13);
});

test('a run without a tally has counts of 0 and no latency (NaN fails any latency threshold)', () => {
  const f = runFigures({ tally: undefined, bursts: [], droppedIterations: 0 });
  assert.equal(f.requests, 0);
  assert.equal(f.failed_rate, 0);
  assert.ok(Number.isNaN(f.p99_ms));
  // As Istio's generator fails a run with no request, no success rate: a success_rate threshold fails.
  assert.ok(Number.isNaN(f.success_rate));
});
