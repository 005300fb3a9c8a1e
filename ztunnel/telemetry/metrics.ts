import { Counter, Registry } from 'prom-client';

/**
 * Istio's standard TCP metrics as istio/ztunnel 1.28 exports them on :15020/metrics
 * (src/proxy/metrics.rs, tag 1.28.1): the four counters under the `istio` prefix, each with
 * CommonTrafficLabels in upstream's order. Values we do not know are "unknown", as upstream's
 * DefaultedUnknown writes them; the optional locality labels, absent upstream without locality,
 * are left out. Upstream 1.28 has no connections-failed counter: a failed connection is a closed
 * one with response_flags="CONNECT". The names and labels are checked against upstream's list in
 * telemetry/test/upstream-metrics.test.ts.
 */
export const METRIC_LABELS = [
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
] as const;
export type MetricLabel = (typeof METRIC_LABELS)[number];
export type MetricLabels = Record<MetricLabel, string>;

export interface ZtunnelMetrics {
  registry: Registry;
  opened: Counter<MetricLabel>;
  closed: Counter<MetricLabel>;
  sentBytes: Counter<MetricLabel>;
  receivedBytes: Counter<MetricLabel>;
}

export function createZtunnelMetrics(): ZtunnelMetrics {
  const registry = new Registry();
  const counter = (name: string, help: string): Counter<MetricLabel> =>
    new Counter({ name: `istio_${name}_total`, help, labelNames: METRIC_LABELS, registers: [registry] });
  return {
    registry,
    opened: counter('tcp_connections_opened', 'The total number of TCP connections opened'),
    closed: counter('tcp_connections_closed', 'The total number of TCP connections closed'),
    receivedBytes: counter(
      'tcp_received_bytes',
      'The size of total bytes received during request in case of a TCP connection',
    ),
    sentBytes: counter(
      'tcp_sent_bytes',
      'The size of total bytes sent during response in case of a TCP connection',
    ),
  };
}
