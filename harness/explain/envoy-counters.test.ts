import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Scrape } from '../observe/metrics-scraper.ts';
import {
  envoyCounterDeltas,
  envoyCounterRows,
  formatEnvoyCounters,
  parseClusterSample,
} from './envoy-counters.ts';
import { FIRST_SCRAPE, LAST_SCRAPE } from './envoy-log.fixture.ts';

const SERVICE = 'outbound|8000||httpbin.default.svc.cluster.local';
const scrape = (atWallMs: number, text: string, pod = 'istio-system/istio-ingressgateway-a'): Scrape => ({
  target: { job: 'gateway', pod, url: 'http://127.0.0.1:15090/stats/prometheus' },
  atWallMs,
  text,
});

describe("Envoy's cluster counters", () => {
  it("reads a sample with Istio's tag (cluster_name) or Envoy's default one (envoy_cluster_name)", () => {
    const table: [string, ReturnType<typeof parseClusterSample>][] = [
      [
        `envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="${SERVICE}"} 15`,
        { cluster: SERVICE, counter: 'upstream_cx_destroy_remote_with_active_rq', value: 15 },
      ],
      [
        'envoy_cluster_upstream_rq_retry_success{envoy_cluster_name="connect_originate"} 2',
        { cluster: 'connect_originate', counter: 'upstream_rq_retry_success', value: 2 },
      ],
      [
        'envoy_cluster_upstream_cx_connect_ms_bucket{cluster_name="connect_originate",le="0.5"} 0',
        { cluster: 'connect_originate', counter: 'upstream_cx_connect_ms_bucket', value: 0 },
      ],
      ['envoy_cluster_upstream_rq_retry 3', undefined],
      ['envoy_server_uptime{cluster_name="x"} 3', undefined],
      ['# TYPE envoy_cluster_upstream_rq_retry counter', undefined],
    ];
    for (const [line, expected] of table) assert.deepEqual(parseClusterSample(line), expected, line);
  });

  it("gives the run's deltas from its first and last gateway scrape", () => {
    const counters = envoyCounterDeltas([
      scrape(1_000, FIRST_SCRAPE),
      {
        ...scrape(1_500, 'envoy_cluster_upstream_cx_total{cluster_name="connect_originate"} 0'),
        target: { job: 'ztunnel', pod: 'istio-system/ztunnel-a', url: '' },
      },
      scrape(6_000, 'ignored: neither first nor last'),
      scrape(16_000, LAST_SCRAPE),
    ]);
    assert.ok(counters);
    assert.deepEqual([counters.fromWallMs, counters.toWallMs], [1_000, 16_000]);
    const delta = new Map(counters.deltas.map((d) => [`${d.cluster} ${d.counter}`, d.delta]));
    assert.equal(delta.get(`${SERVICE} upstream_cx_destroy_remote_with_active_rq`), 15);
    assert.equal(delta.get('connect_originate upstream_cx_total'), 18);
    assert.equal(delta.get('connect_originate upstream_rq_tx_reset'), 14, 'the 14 refused CONNECTs');
    assert.equal(delta.get(`${SERVICE} upstream_rq_tx_reset`), undefined, 'tunnel resets only');
    assert.ok(![...delta.keys()].some((k) => k.startsWith('xds-grpc')));
    assert.ok(![...delta.keys()].some((k) => k.includes('bucket')));
    assert.equal(
      formatEnvoyCounters(counters),
      `Envoy counters over the run (gateway, upstream_*, 15.0 s between its first and last scrape): ${SERVICE} cx_total 120, cx_destroy_remote 114, cx_destroy_remote_with_active_rq 15, rq_retry 0, rq_retry_success 0, cx_connect_fail 0, rq_pending_failure_eject 0; connect_originate cx_total 18, cx_destroy_remote 0, cx_destroy_remote_with_active_rq 0, rq_retry 0, rq_retry_success 0, cx_connect_fail 0, rq_pending_failure_eject 0, rq_tx_reset 14, rq_rx_reset 0`,
    );
    assert.deepEqual(envoyCounterRows(counters)[2], {
      cluster: SERVICE,
      counter: 'upstream_cx_destroy_remote_with_active_rq',
      first: 0,
      last: 15,
      delta: 15,
    });
  });

  it('sums over gateway pods, counts a cluster new since the first scrape from zero, needs two scrapes', () => {
    const line = (counter: string, v: number) =>
      `envoy_cluster_${counter}{cluster_name="connect_originate"} ${String(v)}`;
    const counters = envoyCounterDeltas([
      scrape(0, line('upstream_cx_total', 5), 'gw-a'),
      scrape(9_000, [line('upstream_cx_total', 7), line('upstream_rq_rx_reset', 2)].join('\n'), 'gw-a'),
      scrape(1_000, line('upstream_cx_total', 1), 'gw-b'),
      scrape(10_000, line('upstream_cx_total', 4), 'gw-b'),
      scrape(2_000, line('upstream_cx_total', 100), 'gw-c'), // one scrape: no change to tell
    ]);
    assert.deepEqual(
      counters?.deltas.map((d) => [d.counter, d.first, d.last, d.delta]),
      [
        ['upstream_cx_total', 6, 11, 5],
        ['upstream_rq_rx_reset', 0, 2, 2],
      ],
    );
    assert.equal(envoyCounterDeltas([scrape(0, FIRST_SCRAPE)]), undefined);
    assert.deepEqual(envoyCounterRows(undefined), []);
  });
});
