import type { TimingModel } from '../../clusters/local/index.ts';
import type { BackendName } from '../../clusters/registry.ts';
import type { GeneratorChoice } from '../tools/index.ts';
import type { MitigationArms } from './arms.ts';

/** Everything a cluster experiment run depends on; every field goes into the summary row. */
export interface ExperimentParams {
  scenario: string;
  backend: BackendName;
  /** The load generator asked for (the one that ran is in the row's `generator` column). */
  generator: GeneratorChoice;
  mesh: 'ambient' | 'off';
  graceS: number;
  qps: number;
  connections: number;
  durationS: number;
  timeoutS: number;
  path: string;
  /** Seconds after load start; undefined = load only (baselines, benchmarks). */
  restartAtS: number | undefined;
  replicas: number;
  /**
   * The gateway's worker processes (Envoy's concurrency, which pilot-agent takes from the proxy's CPU
   * limit; the gateway chart's 2000m gives 2).
   */
  gatewayConcurrency: number;
  /**
   * How the gateway reaches ambient pods: hbone (mesh-aware, Istio >= 1.25's default: istiod sends
   * ambient endpoints to gateways as HBONE, PILOT_ENABLE_SENDING_HBONE) or plain (outside the mesh,
   * plaintext to pod IP:port, captured by the destination's ztunnel).
   */
  gatewayMode: 'hbone' | 'plain';
  /**
   * A meshed client pod calling httpbin at this many requests a second, each on a new app connection
   * through its node's ztunnel (E5's ztunnel-to-ztunnel traffic); 0: none.
   */
  meshClientRps: number;
  /** E1's projection line: the count this run's mechanism gives at this rate (req/s). */
  projectRatePerS: number;
  /** A run fails its verdict above this many failed requests. */
  maxFailed: number;
  /** More pass/fail criteria, as written (thresholds.ts): every one must hold. */
  thresholds: string[];
  /** k6 outputs (`--out`), as the user named them; relative paths are in the run's k6 folder. */
  k6Out: string[];
  timing: Partial<TimingModel>;
  arms: MitigationArms;
  /**
   * Which ztunnel serves the workload's pods: ours (the node's, in-pod mode) or istio/ztunnel's own
   * binary (ZTUNNEL_BINARY) in dedicated mode beside each httpbin pod, the pod in a network
   * namespace of its own (local backend, E2 only).
   */
  ztunnelImpl: 'ours' | 'istio' | 'istio-shared';
  /**
   * Where the workload pods' addresses live: loopback (127.x, every pod on the host's `lo`; the
   * default) or netns (--netns: each httpbin and client pod in a network namespace of its own on a
   * bridge per node, local backend, root; --ztunnel-impl istio implies it).
   */
  podNetwork: 'loopback' | 'netns';
}

/** Parameters a scenario sets differently from the CLI's defaults (a user's flag still wins). */
export type ScenarioDefaults = Partial<
  Pick<
    ExperimentParams,
    | 'qps'
    | 'connections'
    | 'durationS'
    | 'timeoutS'
    | 'path'
    | 'graceS'
    | 'replicas'
    | 'restartAtS'
    | 'gatewayMode'
  >
>;
