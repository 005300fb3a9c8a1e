import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createZtunnelMetrics } from '../../ztunnel/telemetry/metrics.ts';
import type { MetricLabels } from '../../ztunnel/telemetry/metrics.ts';
import { toOpenMetrics } from './openmetrics.ts';

it("two scrapes of a ztunnel's registry become one OpenMetrics family per metric, points in time order", async () => {
  const metrics = createZtunnelMetrics();
  const labels = { reporter: 'destination', destination_workload: 'httpbin-a' } as MetricLabels;
  const target = {
    job: 'ztunnel' as const,
    pod: 'istio-system/ztunnel-x',
    url: 'http://127.1.0.5:15020/metrics',
  };
  metrics.opened.inc(labels);
  const first = await metrics.registry.metrics();
  metrics.opened.inc(labels, 2);
  const second = await metrics.registry.metrics();
  const text = toOpenMetrics([
    { target, atWallMs: 1_000_000, text: first },
    { target, atWallMs: 1_005_000, text: second },
  ]);
  const lines = text.trimEnd().split('\n');
  assert.equal(lines.at(-1), '# EOF');
  assert.equal(lines.filter((l) => l === '# TYPE istio_tcp_connections_opened counter').length, 1);
  const opened = lines.filter((l) => l.startsWith('istio_tcp_connections_opened_total{'));
  assert.equal(opened.length, 2);
  assert.match(
    opened[0] ?? '',
    /reporter="destination",destination_workload="httpbin-a",job="ztunnel",instance="127.1.0.5:15020",pod="istio-system\/ztunnel-x"\} 1 1000\.000$/,
  );
  assert.match(opened[1] ?? '', /\} 3 1005\.000$/);
  // Every family's TYPE comes before its samples, and no family appears twice.
  const types = lines.filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]);
  assert.equal(new Set(types).size, types.length);
});
