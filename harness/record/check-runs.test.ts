import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunRow } from './compare/read-runs.ts';
import { checkRuns } from './check-runs.ts';

const run = (id: string, requests: number, backend = 'kind'): RunRow => ({
  line: 2,
  values: { run_id: id, backend },
  counts: {
    requests,
    ok: requests,
    http_503: 0,
    reset: 0,
    refused: 0,
    timeout: 0,
    eof: 0,
    other_5xx: 0,
    other: 0,
  },
  latency: {},
});

test('a job that left its complete runs passes; a missing run, an empty run or another backend is named', () => {
  assert.deepEqual(checkRuns([run('a', 100), run('b', 90)], { rows: 2, backend: 'kind' }), []);
  const problems = checkRuns([run('a', 0), run('b', 50, 'local')], { rows: 3, backend: 'kind' });
  assert.equal(problems.length, 3);
  assert.match(problems[0] ?? '', /^2 complete runs, expected 3/);
  assert.match(problems[1] ?? '', /^a: no request was sent/);
  assert.match(problems[2] ?? '', /^b: backend local, expected kind/);
  // A measurement the job needs, left empty.
  const lag = { ...run('c', 10), values: { run_id: 'c', backend: 'kind', removal_lag_ms: '130' } };
  assert.deepEqual(checkRuns([lag], { rows: 1, filled: ['removal_lag_ms'] }), []);
  assert.deepEqual(checkRuns([run('d', 10)], { rows: 1, filled: ['removal_lag_ms'] }), [
    'd: removal_lag_ms is empty: it was not measured',
  ]);
});
