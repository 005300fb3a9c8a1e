import assert from 'node:assert/strict';
import { test } from 'node:test';
import { burstHeading, formatClusterRun, NO_GATEWAY_LOG } from './format-run.ts';

const base: Record<string, string | number> = {
  generator: 'fortio',
  generator_version: '1.66.0',
  generator_requests: 10,
  requests: 10,
  ok: 10,
  dropped_iterations: 0,
  generator_cpu_avg_pct: '',
  verdict: 'pass',
  reason: '0 failed',
};

const format = (row: Record<string, string | number>): string =>
  formatClusterRun({ bursts: [], loadStartMs: 0, row, runDir: '/tmp/run' });

test("an existing cluster's run without the gateway's access log says what the explanation lacked", () => {
  assert.ok(format({ ...base, backend: 'cluster', gateway_log_requests: '' }).includes(NO_GATEWAY_LOG));
  // With the log, or on a backend whose gateway always writes one, no such line.
  const withLog = format({ ...base, backend: 'cluster', gateway_log_requests: 11, gateway_log_failures: 0 });
  assert.ok(!withLog.includes(NO_GATEWAY_LOG));
  assert.match(withLog, /gateway access log: 11 requests/);
  assert.ok(!format({ ...base, backend: 'kind', gateway_log_requests: '' }).includes(NO_GATEWAY_LOG));
});

test('failures close together are a burst; ten over 30 s are a spread, said as one with their spacing', () => {
  assert.equal(
    burstHeading({ startMs: 1200, durationMs: 193, failures: 4 }, 1000),
    'burst at 0.2 s: 4 failed over 193 ms',
  );
  // Over a second but one per bucket or more: still a burst.
  assert.equal(
    burstHeading({ startMs: 1000, durationMs: 1500, failures: 20 }, 1000),
    'burst at 0.0 s: 20 failed over 1500 ms',
  );
  assert.equal(
    burstHeading({ startMs: 12_200, durationMs: 29_613, failures: 10 }, 1000),
    'spread from 11.2 s to 40.8 s (not a burst): 10 failed over 29.6 s, one every 2.96 s on average',
  );
});
