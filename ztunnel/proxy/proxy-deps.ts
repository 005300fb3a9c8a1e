import type { Logger } from '../../lib/index.ts';
import type { Identity } from '../../mesh/pki/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import type { ZtunnelMetrics } from '../telemetry/metrics.ts';
import type { ConnectionTracker } from './connection-tracker.ts';

/** What every proxy path (inbound: HBONE, plaintext, node-address; outbound: the capture) is given by the ztunnel that runs it. */
export interface ProxyDeps {
  log: Logger;
  metrics: ZtunnelMetrics;
  now: () => number;
  tracker: ConnectionTracker;
  /** Authorization policy; false answers 401. Allows all when absent. */
  authorize?: (peer: Identity | undefined, workload: LocalWorkload) => boolean;
  upstreamConnectTimeoutMs?: number;
  /**
   * With discovery: resolves whether the destination workload is known, waiting up to 5 s for it
   * (a pod the node agent added before the control plane's push reached this ztunnel).
   */
  awaitWorkload?: (ip: string) => Promise<boolean>;
}
