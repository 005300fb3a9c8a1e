// What each backend declares about itself, beside the ClusterBackend it creates: kind's pattern
// (sigs.k8s.io/kind pkg/cluster/internal/providers/provider.go: Provider and ProviderInfo, each
// provider a package of its own, named only in pkg/cluster/provider.go). Here each backend's folder
// exports one BackendProvider (clusters/local/provider.ts, clusters/kind/provider.ts) and
// clusters/registry.ts, the only file that names them, lists them. The orchestrator holds a provider
// and a backend and asks them; it never compares a backend's name.
import type { Clock } from '../lib/index.ts';
import type { ClusterBackend, WorkloadRef } from './backend.ts';
import type { BackendOption } from './backend-option.ts';
import type { GatewayManifestOptions, ZtunnelManifestOptions } from './manifests/index.ts';
import type { ZtunnelImplName, ZtunnelMode } from './ztunnel-impl.ts';
import type { ZtunnelUpdate } from './ztunnel-update.ts';

/**
 * What a backend can do that an experiment may need. Each backend declares its set; a scenario and
 * the options that need one declare it; `refusal` (capabilities.ts) derives the one message for what
 * is missing.
 */
export const CAPABILITIES = {
  inPodZtunnel:
    "ztunnel inside each pod's network namespace, the pods handed to it by a node agent, as Istio ambient runs it (the local backend's node agent; on kind, istio-cni's DaemonSet)",
  nodeAddressZtunnel:
    "ztunnel on each node's address (hostNetwork, HBONE ending on the node, no traffic capture): kind's older mode, kept by name",
  inPodCapture:
    "in-pod outbound capture and istio/ztunnel#1191's drain hooks (the local backend's node agent sends ShutdownStarting and the CNI DEL; kind's sees pods only through the API server, and ztunnel there cannot read a redirected connection's original destination, which outbound capture needs)",
  sidecarBesideApp:
    'a sidecar and its app in one pod on their own addresses (in a real pod they share one network namespace, and the images do not yet split their ports)',
  timingModel: "a timing model to override (kind measures the real latencies from the watches' timestamps)",
  controlPlaneDebounce:
    "istiod's push debounce set by the harness (the debounce arm, --timing debounceQuietMs=<ms>): local's timing model; on kind istiod's PILOT_DEBOUNCE_AFTER, ours or Istio's; an existing cluster's istiod runs with what its installation set",
  containerSignals:
    'lifecycle events for the signals a container gets (kind sees pods through the API server: deletion, exit and removal, not SIGTERM or SIGKILL)',
  upstreamZtunnelDaemonSet:
    "istio/ztunnel's own binary (ZTUNNEL_BINARY) as the ztunnel DaemonSet in shared mode, the pods handed to it over ZDS by our node agent, its discovery (delta ADS) and certificates (gRPC CA) from our control plane (local: each pod in a network namespace of the harness's; kind: the binary packaged into an image at run time); an existing cluster runs the ztunnel it runs",
  podNamespaces:
    "a network namespace per pod made by the harness, for ztunnel's in-pod listeners and istio/ztunnel's binary in dedicated mode beside each pod (kind's pods have theirs, made by its CNI, which the harness does not choose; kind runs the binary in shared mode: --ztunnel-impl istio-shared)",
  perNetnsSysctls:
    "per-network-namespace sysctls where the listeners live (tcp_migrate_req would have to be set on kind's nodes)",
  cpuGroups:
    "cpu cgroups per node and for the load generator made by the harness (kind's nodes are containers whose cgroups Docker makes)",
  podsFromHost:
    "the pods' own addresses reachable from the harness's process: it scrapes ztunnel's and the gateway's metrics there, and runs E3's long-lived client itself (kind's pod network is inside its nodes: no scrape, and the client is a pod)",
  hostIngress:
    "the gateway reachable from this host (local: its address; kind: docker-proxy and a NodePort), for a generator on the host (k6, --load-from host); an existing cluster's gateway is reached from inside it",
  loadInCluster:
    "a load generator pod inside the cluster, outside the mesh, calling the gateway's ClusterIP as ASM ran it (the local backend's generator is a process on the host)",
  gatewayAccessLog:
    "the gateway's access log on in every run (the harness deploys the gateway); an existing cluster's gateway writes one only where its mesh config says",
  gatewayRollout:
    "the harness's own ingress gateway rolled under load, reached through its Service so that the new pod takes the traffic over (kind: the fortio pod calls its ClusterIP, the host its NodePort; the local backend's load calls one gateway pod's address; an existing cluster's gateway is yours, which the harness never rolls)",
  faultServerWorkload:
    "the fault server (apps/fault-server, go-httpbin's routes) as the workload in go-httpbin's place, for --app-shutdown echo (local runs it from this checkout, kind builds its image with ours; an existing cluster has only the images it pulls from your registry)",
  cniDaemonSet:
    "istio-cni's node agent as a DaemonSet the harness restarts or deletes (kind: ours, or Istio's chart's with --control-plane istio, the cluster being the run's; the local backend's node agent is part of its kubelet stand-in; an existing cluster's istio-cni is not the harness's to touch)",
  ztunnelUpdateStrategies:
    "ztunnel's DaemonSet with the update strategy the harness sets (--ztunnel-update), and every pod of a workload deleted at once: local's DaemonSet controller and kind's run the harness's DaemonSet; an existing cluster's ztunnel is yours, and Istio's chart sets its own with --control-plane istio",
  nodeDrain:
    "nodes the harness may cordon and drain, each node's meshed pods evicted through the Eviction API before its ztunnel is replaced (--ztunnel-update drain; kind: the run's own cluster; the local backend's scheduler stand-in has no cordon or eviction; an existing cluster's nodes are not the run's)",
  componentLogs:
    "the components' logs written into the run folder as they run (the gateway's access log, ztunnel's lines; kind follows its containers' logs through the API server): the load's records take Envoy's response flags from the gateway's log, and the judge explains failures by cause from them",
} as const;
export type Capability = keyof typeof CAPABILITIES;

/** How a result column is read across runs (compare): what was asked, or where and how it ran. */
export type BackendColumnRole = 'parameter' | 'bookkeeping';

/** A column of every result row that a backend's describe() fills. */
export interface BackendColumnSpec {
  name: string;
  role: BackendColumnRole;
  /** What docs/reference.md says the column holds. */
  note: string;
  /** A column added after the first schema (harness/options/column-binding.ts). */
  added?: { since: number; olderRowsRan: string };
}

/**
 * What the backend changes in the standard topology's manifests: where ztunnel captures traffic,
 * how load reaches the gateway. Spread into buildMeshManifests' options.
 */
export interface ManifestProfile {
  ztunnel: Pick<ZtunnelManifestOptions, 'inPod' | 'podNetnsByPath'>;
  gateway: Pick<GatewayManifestOptions, 'nodePort'>;
}

/**
 * What create() reads of a run's parameters (a harness's ExperimentParams has them all); a backend
 * ignores what does not apply to it, the CLI having refused what it cannot run (capabilities).
 */
export interface BackendParams {
  /** The local timing model's overrides (ms), by key. */
  timing?: Readonly<Partial<Record<string, number>>>;
  /** Which ztunnel serves the workload's pods: ours, or istio/ztunnel's own binary. */
  ztunnelImpl?: ZtunnelImplName;
  /** Its binary when it is istio/ztunnel's (`--ztunnel-binary`, else ZTUNNEL_BINARY); '' with ours. */
  ztunnelBinary?: string;
  /** Where ztunnel's listeners are: in the pods, or on the nodes' addresses (kind). */
  ztunnelMode?: ZtunnelMode;
  /** How ztunnel's DaemonSet replaces its pods (--ztunnel-update). */
  ztunnelUpdate?: ZtunnelUpdate;
  /** Where the workload pods' addresses live. */
  podNetwork?: 'loopback' | 'netns';
  /** Where the load generator runs: a pod in the cluster (its ClusterIP) or on the host. */
  loadFrom?: 'cluster' | 'host' | undefined;
  /** What the run's fault restarts or scales (an existing cluster refuses a ztunnel restart without consent). */
  faultTarget?: WorkloadRef;
  arms?: { tcpMigrateReq?: number; cpuIsolation?: string; plantedRegression?: string };
}

export interface CreateBackendOptions {
  clock: Clock;
  /** The values of this backend's own options, by key (BackendOption.key); a key absent: not given. */
  settings?: Readonly<Record<string, unknown>>;
  /** Where container output goes (the run folder's pods/). */
  logDir?: string;
  /** kind: the cluster's kubeconfig goes here (default: a private 0700 folder, never the run folder or ~/.kube/config). */
  kubeconfigPath?: string;
  write?: (text: string) => void;
  /** The Envoy binary the proxy pods run, where the backend runs it itself (prepareTools' answer). */
  envoyBinary?: string;
}

/** The Envoy the gateway and sidecar run: a path on this machine, or in the backend's image. */
export interface BackendEnvoy {
  path: string;
  version: string;
}

export interface BackendProvider<Name extends string = string> {
  readonly name: Name;
  /** One line for --backend's help: what it is and what it needs. */
  readonly summary: string;
  readonly capabilities: ReadonlySet<Capability>;
  /** The result columns only this backend fills (the shared ones are in backend-columns.ts). */
  readonly columns: readonly BackendColumnSpec[];
  /** How long bring-up waits for every workload to be Ready and pushed. */
  readonly readyTimeoutMs: number;
  /**
   * Seconds a run on this backend takes beyond the suite entry's estimate (the estimates are the
   * local backend's runs): its cluster's creation and teardown. For the suite's time left.
   */
  readonly runOverheadS: number;
  /** The progress line while the cluster comes up. */
  readonly bringUpText: string;
  readonly manifestProfile: ManifestProfile;
  /** Its own command-line options (and experiment-file keys). */
  readonly options: readonly BackendOption[];
  /**
   * Provisions what the backend runs from this machine (`npm run tools`' binaries) before anything
   * starts, and says which Envoy the proxies run.
   */
  prepareTools(options: { signal?: AbortSignal; write?: (text: string) => void }): Promise<BackendEnvoy>;
  /**
   * The settings with every choice made that create() would otherwise make by chance (local: the
   * loopback block), so the backend the plan preflights and the one the run brings up are the same
   * cluster. Absent: the settings are already the whole choice.
   */
  settle?: (settings: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>;
  /** The cluster; creating one starts nothing (describe() and preflight() work before up()). */
  /** Loads the backend's implementation at its first use (kind's and an existing cluster's bring in
   * client-node, about 900 modules), so a command that never runs it does not pay for it. */
  create(params: BackendParams, options: CreateBackendOptions): Promise<ClusterBackend>;
}
