import { Counter, Registry } from 'prom-client';

/** Labels kept from Istio's standard TCP metrics (a subset: enough to tell pods and directions apart). */
const LABELS = [
  'reporter',
  'source_principal',
  'destination_workload',
  'destination_workload_namespace',
  'destination_principal',
] as const;
export type MetricLabels = Record<(typeof LABELS)[number], string>;

export interface ZtunnelMetrics {
  registry: Registry;
  opened: Counter<(typeof LABELS)[number]>;
  closed: Counter<(typeof LABELS)[number]>;
  failed: Counter<(typeof LABELS)[number]>;
  sentBytes: Counter<(typeof LABELS)[number]>;
  receivedBytes: Counter<(typeof LABELS)[number]>;
}

/** istio_tcp_* counters as ztunnel exports them on :15020/metrics (names from Istio's standard metrics). */
export function createZtunnelMetrics(): ZtunnelMetrics {
  const registry = new Registry();
  const counter = (name: string, help: string): Counter<(typeof LABELS)[number]> =>
    new Counter({ name, help, labelNames: LABELS, registers: [registry] });
  return {
    registry,
    opened: counter('istio_tcp_connections_opened_total', 'The total number of TCP connections opened'),
    closed: counter('istio_tcp_connections_closed_total', 'The total number of TCP connections closed'),
    failed: counter('istio_tcp_connections_failed_total', 'The total number of TCP connections that failed'),
    sentBytes: counter(
      'istio_tcp_sent_bytes_total',
      'The size of total bytes sent during response in case of a TCP connection',
    ),
    receivedBytes: counter(
      'istio_tcp_received_bytes_total',
      'The size of total bytes received during request in case of a TCP connection',
    ),
  };
}
