import type { V1DaemonSet, V1Deployment, V1PodSpec, V1Service } from '@kubernetes/client-node';
import type { Clock } from '../../lib/index.ts';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface PodRecord {
  uid: string;
  name: string;
  namespace: string;
  nodeName: string;
  hostIp: string;
  podIp: string;
  /** Where the app binds: a private address when meshed (ztunnel owns podIp), else podIp. */
  appIp: string;
  isMeshed: boolean;
  /** In a network namespace of its own (POD_NETWORK_ANNOTATION), on its node's bridge. */
  netns?: boolean;
  /**
   * Served by a ztunnel container of its own (istio/ztunnel in dedicated mode), not by the node's:
   * the node agent tells the node's ztunnel nothing of it.
   */
  dedicatedZtunnel?: boolean;
  /**
   * istio-cni's in-pod capture is set up in its namespace (mesh/node-agent/inpod-capture.ts): a meshed
   * pod on a node whose ztunnel is istio/ztunnel in shared mode, which listens on :15006/:15001
   * rather than on the pod's own ports.
   */
  inpodCapture?: boolean;
  serviceAccount: string;
  labels: Record<string, string>;
  owner: { kind: 'Deployment' | 'DaemonSet'; name: string; templateHash: string };
  spec: V1PodSpec;
  phase: PodPhase;
  isReady: boolean;
  readySinceMs?: number;
  createdAtMs: number;
  deletionAtMs?: number;
}

export interface ReplicaSetRecord {
  templateHash: string;
  specReplicas: number;
  createdSeq: number;
}

export interface RolloutRecord {
  startedAtMs: number;
  statusCompleteAtMs?: number;
  oldPodsGoneAtMs?: number;
}

export interface DeploymentRecord {
  object: V1Deployment;
  templateHash: string;
  replicaSets: ReplicaSetRecord[];
  rollout?: RolloutRecord;
}

export interface DaemonSetRecord {
  object: V1DaemonSet;
  templateHash: string;
  rollout?: RolloutRecord;
}

export interface ServiceRecord {
  object: V1Service;
  vip: string;
}

/**
 * The local backend's "API server": the objects and pods, and a watch that tells every subscriber
 * about a change after the timing model's fan-out delay (as a watch event would arrive). Listeners
 * re-read the state when called, like an informer's handler reading its cache.
 */
export interface ClusterState {
  pods: Map<string, PodRecord>;
  deployments: Map<string, DeploymentRecord>;
  daemonSets: Map<string, DaemonSetRecord>;
  services: Map<string, ServiceRecord>;
  /** Records a change: each watcher is called `watchFanoutMs` later (coalesced per watcher). */
  changed(): void;
  watch(listener: () => void): () => void;
  close(): void;
}

export function createClusterState(options: { clock: Clock; watchFanoutMs: number }): ClusterState {
  const watchers = new Map<() => void, { scheduled: boolean }>();
  const stop = new AbortController();
  return {
    pods: new Map(),
    deployments: new Map(),
    daemonSets: new Map(),
    services: new Map(),
    changed() {
      for (const [listener, state] of watchers) {
        if (state.scheduled) continue;
        state.scheduled = true;
        options.clock.sleep(options.watchFanoutMs, stop.signal).then(
          () => {
            state.scheduled = false;
            if (watchers.has(listener)) listener();
          },
          () => undefined, // closed: pending watch events are dropped with the cluster
        );
      }
    },
    watch(listener) {
      watchers.set(listener, { scheduled: false });
      return () => watchers.delete(listener);
    },
    close() {
      stop.abort();
      watchers.clear();
    },
  };
}

export function podKey(pod: { namespace: string; name: string }): string {
  return `${pod.namespace}/${pod.name}`;
}

export function isTerminal(pod: PodRecord): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}

/** Counts toward a ReplicaSet: not terminating and not finished (controller.FilterActivePods). */
export function isActive(pod: PodRecord): boolean {
  return pod.deletionAtMs === undefined && !isTerminal(pod);
}
