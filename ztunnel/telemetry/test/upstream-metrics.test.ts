// Our ztunnel's metrics and access log against istio/ztunnel's own, copied from its source at tag
// 1.28.1 (commit 9263b88677bab2d68ef7cd99040e8cb03584c957): src/proxy/metrics.rs registers the
// counters below under the `istio` prefix (src/metrics.rs sub_registry_with_prefix("istio");
// prometheus-client appends _total to counters) with CommonTrafficLabels, and writes the access log
// with target "access" (src/telemetry.rs IstioFormat: time, level, target, message, fields, tabs).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createLogger } from '../../../lib/index.ts';
import { openConnectionRecord } from '../connection-log.ts';
import { createZtunnelMetrics } from '../metrics.ts';

const UPSTREAM_COUNTERS = [
  'istio_tcp_connections_opened_total',
  'istio_tcp_connections_closed_total',
  'istio_tcp_received_bytes_total',
  'istio_tcp_sent_bytes_total',
];
const UPSTREAM_LABELS = [
  'reporter',
  'source_workload',
  'source_canonical_service',
  'source_canonical_revision',
  'source_workload_namespace',
  'source_principal',
  'source_app',
  'source_version',
  'source_cluster',
  'destination_service',
  'destination_service_namespace',
  'destination_service_name',
  'destination_workload',
  'destination_canonical_service',
  'destination_canonical_revision',
  'destination_workload_namespace',
  'destination_principal',
  'destination_app',
  'destination_version',
  'destination_cluster',
  'request_protocol',
  'response_flags',
  'connection_security_policy',
];
/** access_log! in metrics.rs, in its order (src.workload, src.namespace, dst.service: when known). */
const UPSTREAM_ACCESS_FIELDS = [
  'src.addr',
  'src.workload',
  'src.namespace',
  'src.identity',
  'dst.addr',
  'dst.hbone_addr',
  'dst.service',
  'dst.workload',
  'dst.namespace',
  'dst.identity',
  'direction',
  'bytes_sent',
  'bytes_recv',
  'duration',
  'error',
];

it("ztunnel's counters and their labels are upstream's, and only upstream's", async () => {
  const metrics = createZtunnelMetrics();
  const complete = openConnectionRecord(
    {
      direction: 'inbound',
      srcAddr: '10.0.0.1:4000',
      srcIdentity: 'spiffe://cluster.local/ns/istio-system/sa/gw',
      dstAddr: '10.0.0.2:15008',
      dstHboneAddr: '10.0.0.2:8080',
      dstWorkload: 'httpbin-a',
      dstNamespace: 'default',
      dstIdentity: 'spiffe://cluster.local/ns/default/sa/httpbin',
    },
    { log: createLogger({ component: 'ztunnel', write: () => undefined }), metrics, now: () => 0 },
  );
  complete({ bytesSent: 1, bytesRecv: 2 });
  const families = await metrics.registry.getMetricsAsJSON();
  assert.deepEqual(families.map((f) => f.name).sort(), [...UPSTREAM_COUNTERS].sort());
  for (const family of families)
    for (const value of family.values)
      assert.deepEqual(Object.keys(value.labels), UPSTREAM_LABELS, family.name);
});

it("the access log line has upstream's shape: access target, info or error, upstream's fields in order", () => {
  const lines: string[] = [];
  const log = createLogger({ component: 'ztunnel', format: 'istio', write: (l) => lines.push(l) }).child({
    scope: 'access',
  });
  const complete = openConnectionRecord(
    {
      direction: 'outbound',
      srcAddr: '10.0.0.1:4000',
      srcIdentity: 'spiffe://cluster.local/ns/default/sa/client',
      dstAddr: '10.0.0.2:15008',
      dstWorkload: 'httpbin-a',
      dstNamespace: 'default',
      dstIdentity: 'spiffe://cluster.local/ns/default/sa/httpbin',
    },
    { log, metrics: createZtunnelMetrics(), now: () => 0 },
  );
  complete({ bytesSent: 0, bytesRecv: 0, error: 'connection failed: Connection refused (os error 111)' });
  const [line = ''] = lines;
  const [, level, target, message, fields = ''] = line.split('\t');
  assert.deepEqual([level, target, message], ['error', 'access', 'connection complete']);
  const names = [...fields.matchAll(/(?:^| )([a-z_.]+)=/g)].map((m) => m[1] ?? '');
  assert.deepEqual(
    names,
    UPSTREAM_ACCESS_FIELDS.filter((f) => names.includes(f)),
    'a subset of upstream fields, in order',
  );
  assert.match(fields, /^src\.addr=10\.0\.0\.1:4000 src\.identity="spiffe:/);
  assert.match(fields, / error="connection failed: Connection refused \(os error 111\)"$/);
});
