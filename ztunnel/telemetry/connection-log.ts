import type { Logger } from '../../lib/index.ts';
import { METRIC_LABELS } from './metrics.ts';
import type { MetricLabels, ZtunnelMetrics } from './metrics.ts';

/** istiod's default CLUSTER_ID, which ztunnel reports as source/destination_cluster. */
const CLUSTER_ID = 'Kubernetes';

/** One proxied connection, for the `connection complete` access-log line and the TCP metrics. */
export interface ConnectionInfo {
  direction: 'inbound' | 'outbound';
  srcAddr: string;
  srcIdentity?: string;
  dstAddr: string;
  /** The CONNECT authority (pod IP:target port) for HBONE; absent for plaintext. */
  dstHboneAddr?: string;
  dstWorkload: string;
  dstNamespace: string;
  dstIdentity: string;
}

export interface ConnectionOutcome {
  bytesSent: number;
  bytesRecv: number;
  error?: string;
}

/**
 * A connection refused before it had a record (src/proxy/metrics.rs `log_early_deny`): target
 * `access`, warn, `connection failed` with src.addr, dst.addr, direction and the error.
 */
export function logEarlyDeny(log: Logger, denied: { srcAddr: string; dstAddr: string; error: string }): void {
  log.warn('connection failed', {
    'src.addr': denied.srcAddr,
    'dst.addr': denied.dstAddr,
    direction: 'inbound',
    error: denied.error,
  });
}

/**
 * Opens the record of one connection (counts it opened) and returns the function that completes it:
 * the `connection complete` line as istio/ztunnel 1.28 writes it (src/proxy/metrics.rs
 * ConnectionResult::record_internal and access_log!: target `access`, info, or error with `error=`
 * on a failure; the fields in upstream's order, those we do not know - src.workload, src.namespace,
 * dst.service - left out as upstream leaves out an unknown value) and the closed and bytes counters
 * (a connection that could not reach its destination flagged response_flags="CONNECT").
 */
export function openConnectionRecord(
  info: ConnectionInfo,
  deps: { log: Logger; metrics: ZtunnelMetrics; now: () => number },
): (outcome: ConnectionOutcome) => void {
  const startMs = deps.now();
  // Upstream's labels (metrics.rs CommonTrafficLabels); what a ztunnel here does not know is unknown.
  const base: MetricLabels = {
    ...(Object.fromEntries(METRIC_LABELS.map((l) => [l, 'unknown'])) as MetricLabels),
    reporter: info.direction === 'inbound' ? 'destination' : 'source',
    source_principal: info.srcIdentity ?? 'unknown',
    source_cluster: CLUSTER_ID,
    destination_workload: info.dstWorkload,
    destination_workload_namespace: info.dstNamespace,
    destination_principal: info.dstIdentity,
    destination_cluster: CLUSTER_ID,
    request_protocol: 'tcp',
    response_flags: '-',
    // A peer identity means the connection came or went over HBONE (mTLS).
    connection_security_policy: info.srcIdentity ? 'mutual_tls' : 'unknown',
  };
  deps.metrics.opened.inc(base);
  let done = false;
  return (outcome) => {
    if (done) return;
    done = true;
    // A connection to the destination that could not be made: upstream's ConnectionFailure.
    const labels = /^connection failed/.test(outcome.error ?? '')
      ? { ...base, response_flags: 'CONNECT' }
      : base;
    deps.metrics.closed.inc(labels);
    deps.metrics.sentBytes.inc(labels, outcome.bytesSent);
    deps.metrics.receivedBytes.inc(labels, outcome.bytesRecv);
    const fields = {
      'src.addr': info.srcAddr,
      'src.identity': info.srcIdentity,
      'dst.addr': info.dstAddr,
      'dst.hbone_addr': info.dstHboneAddr,
      'dst.workload': info.dstWorkload,
      'dst.namespace': info.dstNamespace,
      'dst.identity': info.dstIdentity,
      direction: info.direction,
      bytes_sent: outcome.bytesSent,
      bytes_recv: outcome.bytesRecv,
      duration: `${String(Math.round(deps.now() - startMs))}ms`,
      error: outcome.error,
    };
    if (outcome.error === undefined) deps.log.info('connection complete', fields);
    else deps.log.error('connection complete', fields);
  };
}
