import type { Clock, HarnessError } from '../lib/index.ts';
import type { EventListener, LifecycleEvent } from './events.ts';
import type { ClientPodOptions, ClusterObject } from './manifests/index.ts';

/**
 * What a backend records with every result, by column (backend-columns.ts lists them all: the
 * shared ones and each backend's own).
 */
export type BackendDescription = Partial<Record<string, string | number>>;

/** A client pod while it runs. */
export interface ClientPod {
  /** Deletes the pod (SIGTERM, its grace) and resolves with every line it wrote, once it has ended. */
  stop(): Promise<string[]>;
}

export type WorkloadKind = 'Deployment' | 'DaemonSet';

export interface WorkloadRef {
  kind: WorkloadKind;
  namespace: string;
  name: string;
}

export interface PodInfo {
  name: string;
  namespace: string;
  node: string;
  podIp: string;
  /** Where the app listens (differs from podIp for meshed pods on the local backend). */
  appIp: string;
  isMeshed: boolean;
  isReady: boolean;
  isDeleting: boolean;
  phase: string;
  owner: string;
  /**
   * The PIDs of its containers' processes on this machine (the local backend; each is the root of
   * its process tree), for per-component CPU. Absent where containers are not local processes (kind).
   */
  pids?: number[];
}

export interface ClusterAddresses {
  nodes: { name: string; ip: string }[];
  /**
   * istiod: ztunnel's XDS host:port, the CA's URL, and Envoy's mTLS ADS host:port (what the gateway's
   * and the sidecar's pilot-agent dial).
   */
  controlPlane: { xds: string; ca: string; envoyXds: string };
  /** host:port where load enters (the gateway's pod address), when a gateway is deployed and Ready. */
  ingress?: string;
  services: { namespace: string; name: string; vip: string; ports: { port: number; targetPort: number }[] }[];
  pods: PodInfo[];
}

export interface RolloutResult {
  startedAtMs: number;
  /** When `kubectl rollout status` would have returned. */
  statusCompleteAtMs: number;
  /** When the last pod of the old template was gone (may be after statusCompleteAtMs). */
  oldPodsGoneAtMs?: number;
}

/**
 * One cluster an experiment runs on: the local process cluster (clusters/local/) and kind
 * (clusters/kind/) implement it, each created by its provider (clusters/registry.ts); the contract
 * tests in clusters/test/backend-contract.ts run against every implementation.
 * Times are on `clock` (the run's monotonic clock).
 */
export interface ClusterBackend {
  /** Its provider's name (clusters/registry.ts). */
  readonly kind: string;
  readonly clock: Clock;
  up(signal?: AbortSignal): Promise<void>;
  /** Validates every object first (nothing applied on error), then creates or updates them. */
  apply(objects: ClusterObject[]): Promise<void>;
  /**
   * Resolves when every Deployment and DaemonSet has all its pods Ready on the current template and
   * the control plane has pushed them as HEALTHY (so load through the gateway can reach them).
   */
  waitForReady(options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  rolloutRestart(ref: WorkloadRef): Promise<void>;
  scale(ref: WorkloadRef, replicas: number): Promise<void>;
  deletePod(namespace: string, name: string): Promise<void>;
  /**
   * Deletes every pod of the workload at once (`kubectl delete pod -l` on its selector), as Istio's
   * CRL test restarts ztunnel; resolves with how many, once each is seen deleting.
   */
  deleteAllPods(ref: WorkloadRef): Promise<number>;
  /**
   * --ztunnel-update drain (clusters/kind/ops/drain-nodes.ts): the DaemonSet's pods replaced node by
   * node, each node cordoned and its meshed pods evicted first, uncordoned once its new pod is Ready.
   * Absent where the backend cannot cordon a node of its own (the capability nodeDrain says which).
   */
  drainNodesInTurn?(
    daemonSet: WorkloadRef,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<void>;
  /**
   * Deletes the workload (`kubectl delete daemonset`, its pods by garbage collection); resolves once
   * its pods are gone, the deletion's start and end as a rollout's. Absent where the backend does
   * not run the workloads a scenario deletes (istio-cni's DaemonSet: the capability cniDaemonSet).
   */
  deleteWorkload?(
    ref: WorkloadRef,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<RolloutResult>;
  waitForRollout(
    ref: WorkloadRef,
    options: { timeoutMs: number; untilOldPodsGone?: boolean; signal?: AbortSignal },
  ): Promise<RolloutResult>;
  onEvent(listener: EventListener): () => void;
  events(): readonly LifecycleEvent[];
  /** A component crashed (the run should fail, naming it). */
  onFailure(listener: (err: HarnessError) => void): () => void;
  addresses(): ClusterAddresses;
  /** Container output (last lines), for `namespace/pod`. */
  logs(pod: string): readonly string[];
  /**
   * Everything that would make up() fail for want of something on this machine, checked before
   * anything starts: a BadInput or ToolMissing error (exit 2) saying what to install or change.
   */
  preflight(): Promise<void>;
  /** Parameters to record with every result (backend kind, timing model, ...). */
  describe(): BackendDescription;
  /**
   * The load generator's command line as it is started beside this cluster: the local backend with
   * --cpu-isolation puts it in a cpu cgroup of its own, as on a node of its own. Absent, or `argv`
   * unchanged: where the harness runs it. Only after up().
   */
  generatorCommand?(argv: readonly string[]): string[];
  /**
   * A client of ours started as a pod outside the mesh, where the pods' own addresses are reachable
   * only from inside the cluster (kind). Absent: the backend's pods are reachable from the harness's
   * process, which runs the client itself. Only after up().
   */
  startClientPod?(options: ClientPodOptions): Promise<ClientPod>;
  /**
   * Tears the cluster down in order, idempotent: every pod gets SIGTERM and a short grace period
   * (2 s, as `kubectl delete --grace-period=2`) before SIGKILL, then the cluster goes. The local
   * backend stops every process it started; kind deletes our workloads and pods, then the cluster.
   */
  close(): Promise<void>;
  /**
   * Tears the cluster down at once (an aborted or crashed run): SIGKILL, no grace; cuts a close()
   * in progress short. Idempotent, and safe after close().
   */
  destroy(err?: Error): Promise<void>;
}
