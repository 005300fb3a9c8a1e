// The control plane's options and what a push reports (control-plane.ts starts it).
import type { Clock, Logger } from '../../lib/index.ts';
import type { WorkloadEntry } from '../discovery/index.ts';
import type { RootMaterial, TokenCaller } from '../pki/index.ts';
import type { XdsNack } from '../xds/index.ts';
import type { ClusterSource } from './cluster-source.ts';

/** One completed push: which workloads it turned UNHEALTHY or removed, and who acknowledged it. */
export interface PushReport {
  atMs: number;
  version: string;
  becameUnhealthy: WorkloadEntry[];
  removed: WorkloadEntry[];
  subscribers: number;
  acked: number;
}

export interface ControlPlaneOptions {
  /** The mesh CA's root, when not a fresh one (istio/ztunnel's test root, for its FAKE_CA). */
  caRoot?: RootMaterial;
  source: ClusterSource;
  clock: Clock;
  log: Logger;
  host: string;
  debounceQuietMs: number;
  debounceMaxMs: number;
  /** Extra time each push takes before it reaches the wire (timing model). */
  pushLatencyMs: number;
  /**
   * Test only (planted regression late-removal): a push that removes or unreadies a workload waits
   * this much more before it goes out.
   */
  holdRemovalsMs?: number;
  onPush?: (report: PushReport) => void;
  /**
   * TokenReview for the CA: the caller a service-account token stands for, or why it is refused
   * (local: the local API server's tokens; kind: the Kubernetes TokenReview API).
   */
  authenticate(token: string): Promise<TokenCaller | string>;
  /** 0 picks free ports (tests); the cluster uses istiod's. */
  ports?: { xds: number; ca: number; envoyXds?: number; ztunnelXds?: number };
  /**
   * Where istio/ztunnel's delta ADS listens, when not on `host`: the local backend's network-world
   * address of the host, which a ztunnel in a network namespace of its own reaches (a 127.x address
   * is loopback, routed to no other namespace).
   */
  ztunnelXdsHost?: string;
  /** A proxy refused a configuration (a defect of ours: the run fails). */
  onNack?: (nack: XdsNack) => void;
}
