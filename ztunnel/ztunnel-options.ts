// What a ztunnel instance is given (ztunnel.ts creates it; sigterm-drain.ts reads the drain's part).
import type { Clock, Logger } from '../lib/index.ts';
import type { DiscoveryState } from '../mesh/discovery/index.ts';
import type { HbonePool } from '../mesh/hbone/index.ts';
import type { WorkloadCertificate } from '../mesh/pki/index.ts';
import type { DrainStrategy } from './drain-strategy.ts';
import type { ZtunnelMetrics } from './telemetry/metrics.ts';

export interface ZtunnelOptions {
  issueCert: (identity: { namespace: string; serviceAccount: string }) => Promise<WorkloadCertificate>;
  log: Logger;
  metrics: ZtunnelMetrics;
  clock: Clock;
  drainDeadlineMs: number;
  /** Test only (planted regression rst-at-deadline): reset the connections left at the deadline. */
  resetAtDeadline?: boolean;
  upstreamConnectTimeoutMs?: number;
  /** Discovery and a client pool: pods get their outbound capture (:15001). */
  outbound?: { discovery: DiscoveryState; pool: HbonePool };
  drainStrategy?: DrainStrategy;
  /**
   * At the drain deadline, read which sockets hold unread bytes (closeKinds): a measurement, not
   * upstream behaviour, and it costs CPU at the moment it explains (DRAIN_READ_CLOSE_KINDS).
   */
  readCloseKinds?: boolean;
}
