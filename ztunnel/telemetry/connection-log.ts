import type { Logger } from '../../lib/index.ts';
import type { MetricLabels, ZtunnelMetrics } from './metrics.ts';

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
 * Opens the record of one connection (counts it opened) and returns the function that completes it:
 * the `connection complete` line with upstream's field names (info, or warn with `error=` on a
 * failure) and the closed/failed/bytes counters.
 */
export function openConnectionRecord(
  info: ConnectionInfo,
  deps: { log: Logger; metrics: ZtunnelMetrics; now: () => number },
): (outcome: ConnectionOutcome) => void {
  const startMs = deps.now();
  const labels: MetricLabels = {
    reporter: info.direction === 'inbound' ? 'destination' : 'source',
    source_principal: info.srcIdentity ?? 'unknown',
    destination_workload: info.dstWorkload,
    destination_workload_namespace: info.dstNamespace,
    destination_principal: info.dstIdentity,
  };
  deps.metrics.opened.inc(labels);
  let done = false;
  return (outcome) => {
    if (done) return;
    done = true;
    deps.metrics.closed.inc(labels);
    if (outcome.error !== undefined) deps.metrics.failed.inc(labels);
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
    else deps.log.warn('connection complete', fields);
  };
}
