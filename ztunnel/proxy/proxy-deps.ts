import type { Logger } from '../../lib/index.ts';
import type { Identity } from '../../mesh/pki/index.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import type { ZtunnelMetrics } from '../telemetry/metrics.ts';
import type { ConnectionTracker } from './connection-tracker.ts';
import type { ConnectUpstream } from './connect-upstream.ts';

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
   * How the app connection is made: from ztunnel's own namespace when absent; from inside the pod's
   * namespace for a pod under istio-cni's capture (ztunnel/inpod/netns-connector.ts).
   */
  connectApp?: ConnectUpstream;
  /**
   * With discovery: resolves whether the destination workload is known, waiting up to 5 s for it
   * (a pod the node agent added before the control plane's push reached this ztunnel).
   */
  awaitWorkload?: (ip: string) => Promise<boolean>;
}
