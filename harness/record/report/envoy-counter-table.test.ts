import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pivotEnvoyCounters } from './envoy-counter-table.ts';
import { buildRunReport } from './report-html.ts';

const SERVICE = 'outbound|8000||httpbin.default.svc.cluster.local';
// Rows of envoy-counters.csv and gateway-failures.csv as a workload-rollout run wrote them (2026-11-24).
const counters = [
  { cluster: SERVICE, counter: 'upstream_cx_destroy_remote_with_active_rq', first: 0, last: 15, delta: 15 },
  { cluster: SERVICE, counter: 'upstream_rq_retry', first: 0, last: 0, delta: 0 },
  { cluster: 'connect_originate', counter: 'upstream_cx_total', first: 0, last: 18, delta: 18 },
  { cluster: 'connect_originate', counter: 'upstream_rq_retry', first: 0, last: 0, delta: 0 },
];
const failures = [
  {
    failures: 14,
    status: 503,
    flags: 'UC',
    meaning: 'CONNECT refused by ztunnel',
    details: 'upstream_reset_before_response_started{connection_termination}',
    tunnel_reason: 'tunnel_response:503',
  },
];

test('one row per counter, one column per cluster, blank where a cluster has no such counter', () => {
  assert.deepEqual(pivotEnvoyCounters(counters), [
    { counter: 'upstream_cx_destroy_remote_with_active_rq', [SERVICE]: 15, connect_originate: '' },
    { counter: 'upstream_rq_retry', [SERVICE]: 0, connect_originate: 0 },
    { counter: 'upstream_cx_total', [SERVICE]: '', connect_originate: 18 },
  ]);
  assert.deepEqual(pivotEnvoyCounters([]), []);
});

test("report.html lists the failures in Envoy's words and its counters, and leaves the section out without them", () => {
  const base = {
    row: { scenario: 'workload-rollout', run_id: 'r' },
    svg: '<svg></svg>',
    bursts: [],
    events: [],
  };
  const html = buildRunReport({ ...base, envoy: { gatewayFailures: failures, envoyCounters: counters } });
  const section = /<h2>Gateway failures in Envoy's words<\/h2>([\s\S]*?)<h2>/.exec(html)?.[1] ?? '';
  assert.match(
    section,
    /<td>14<\/td><td>503<\/td><td>UC<\/td><td class="long">CONNECT refused by ztunnel<\/td><td>tunnel_response:503<\/td>/,
  );
  assert.match(section, /<th>connect_<wbr>originate<\/th>/);
  assert.match(section, /<td>upstream_cx_total<\/td><td><\/td><td>18<\/td>/);
  for (const envoy of [undefined, { gatewayFailures: [], envoyCounters: [] }])
    assert.doesNotMatch(buildRunReport({ ...base, ...(envoy ? { envoy } : {}) }), /Envoy's words/);
});
