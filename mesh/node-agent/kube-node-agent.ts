// istio-cni's node agent on a real cluster (the kind backend's istio-cni DaemonSet). An ambient pod
// of its node is enrolled as istio-cni's ambient server enrols one (istio/istio
// cni/pkg/nodeagent/net_linux.go `AddPodToMesh`): the in-pod rules applied inside its network
// namespace, the node's probe bypass added, then handed to the node's ztunnel (an add to the newest
// instance), which answers once its listeners are bound there. A new pod comes from the CNI plugin
// at sandbox creation, before its containers start (cni-plugin.ts; the namespace and IP are the
// plugin's); a pod the plugin did not see (started before the agent) from the pod watch once it has
// an IP, its namespace found from the node's processes (pod-netns.ts), as upstream's informer does.
// It leaves the mesh when the watch sees it terminal or deleted (informers.go; `RemovePodFromMesh`:
// a del to every instance). Each enrolment says in the log where it came from and how long after
// the pod's start. A captured pod is annotated ambient.istio.io/redirection=enabled, and the
// annotation taken off when the pod leaves the mesh while it still runs (net_linux.go
// annotateEnrolledPod, annotateUnenrollPod): istiod sends a pod as HBONE only with it.
import type { Logger } from '../../lib/index.ts';
import {
  AMBIENT_REDIRECTION_ANNOTATION,
  AMBIENT_REDIRECTION_ENABLED,
  DATAPLANE_MODE_LABEL,
} from '../workload.ts';
import type { LocalWorkload } from '../workload.ts';
import type { NodeAgentServer } from './node-agent-server.ts';

/** What the agent reads of a pod (a client-node AgentPod has it). */
export interface AgentPod {
  metadata?: {
    uid?: string;
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: unknown;
  };
  spec?: {
    nodeName?: string;
    hostNetwork?: boolean;
    serviceAccountName?: string;
    containers: { ports?: { containerPort: number; protocol?: string }[] }[];
  };
  status?: { phase?: string; podIP?: string; startTime?: { toString(): string } };
}

export interface PodEnrollerDeps {
  nodeName: string;
  server: Pick<NodeAgentServer, 'addWorkload' | 'delWorkload'>;
  log: Logger;
  now: () => number;
  /** The pod's network namespace path, or undefined while its sandbox has no process yet. */
  findNetns(uid: string): Promise<string | undefined>;
  /** istio-cni's rules inside the namespace and the node's probe rule for the pod's IP. */
  capture(netnsPath: string, podIp: string): Promise<void>;
  /** The node's probe rule removed. */
  release(podIp: string): Promise<void>;
  /** The pod's ambient.istio.io/redirection annotation set (true) or removed (false). */
  annotate(pod: AgentPod, enabled: boolean): Promise<void>;
}

export interface PodEnroller {
  /** A pod added or changed (the watch's add and update). */
  onPod(pod: AgentPod): Promise<void>;
  /** The CNI plugin's ADD: the pod (read from the API server), its namespace path and IP. */
  onCniAdd(pod: AgentPod, netns: string, podIp: string): Promise<void>;
  /** A pod deleted (the watch's delete). */
  onPodGone(pod: AgentPod): Promise<void>;
  /** The uids enrolled now. */
  enrolled(): string[];
  /** Resolves once every event given so far has been handled. */
  idle(): Promise<void>;
}

const uidOf = (pod: AgentPod): string => pod.metadata?.uid ?? '';

/** The workload ztunnel is handed: the pod's own address, its TCP container ports, its namespace. */
export function workloadOf(pod: AgentPod, netns: string, podIp = pod.status?.podIP ?? ''): LocalWorkload {
  return {
    uid: uidOf(pod),
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? 'default',
    serviceAccount: pod.spec?.serviceAccountName ?? 'default',
    podIp,
    appIp: podIp,
    ports: (pod.spec?.containers ?? []).flatMap((c) =>
      (c.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP').map((p) => p.containerPort),
    ),
    netns,
    inpodCapture: true,
  };
}

const isTerminal = (pod: AgentPod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

function wantsMesh(pod: AgentPod): boolean {
  return (
    pod.metadata?.labels?.[DATAPLANE_MODE_LABEL] === 'ambient' &&
    pod.spec?.hostNetwork !== true &&
    !isTerminal(pod)
  );
}

/**
 * The agent's decisions, one event at a time in arrival order (each awaited before the next), so a
 * pod is never enrolled twice nor removed before its enrolment ends.
 */
export function createPodEnroller(deps: PodEnrollerDeps): PodEnroller {
  const enrolled = new Map<string, { podIp: string; name: string }>();
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = (work: () => Promise<void>): Promise<void> => {
    const turn = queue.then(work);
    queue = turn.catch(() => undefined);
    return turn;
  };

  const annotate = (pod: AgentPod, enabled: boolean): Promise<void> =>
    deps.annotate(pod, enabled).catch((err: unknown) => {
      deps.log.warn('pod annotation not written', {
        name: pod.metadata?.name ?? '',
        enabled,
        error: err instanceof Error ? err.message : String(err),
      });
    });

  /** `still`: the pod as it is, when it leaves the mesh without being deleted (its annotation goes). */
  const remove = async (uid: string, why: string, still?: AgentPod): Promise<void> => {
    const pod = enrolled.get(uid);
    if (!pod) return;
    enrolled.delete(uid);
    await deps.server.delWorkload(uid, { networkGone: true });
    await deps.release(pod.podIp).catch((err: unknown) => {
      deps.log.warn('probe rule not removed', { name: pod.name, error: String(err) });
    });
    if (still && !isTerminal(still)) await annotate(still, false);
    deps.log.info('pod removed from the mesh', { uid, name: pod.name, why });
  };

  const enrol = async (pod: AgentPod, netns: string, podIp: string, via: 'cni' | 'watch'): Promise<void> => {
    const uid = uidOf(pod);
    const name = pod.metadata?.name ?? '';
    await deps.capture(netns, podIp);
    enrolled.set(uid, { podIp, name });
    const started = Date.parse(pod.status?.startTime?.toString() ?? '');
    await deps.server.addWorkload(workloadOf(pod, netns, podIp)).catch((err: unknown) => {
      // Kept: the next ztunnel to connect gets it in its snapshot (upstream keeps a nacked pod pending).
      deps.log.warn('ztunnel refused the pod', {
        name,
        error: err instanceof Error ? err.message : String(err),
      });
    });
    if (pod.metadata?.annotations?.[AMBIENT_REDIRECTION_ANNOTATION] !== AMBIENT_REDIRECTION_ENABLED)
      await annotate(pod, true);
    deps.log.info('pod enrolled', {
      uid,
      namespace: pod.metadata?.namespace ?? 'default',
      name,
      pod_ip: podIp,
      netns,
      via,
      ...(Number.isFinite(started) ? { after_pod_start_ms: deps.now() - started } : {}),
    });
  };

  return {
    onPod: (pod) =>
      inTurn(async () => {
        if (pod.spec?.nodeName !== deps.nodeName) return;
        const uid = uidOf(pod);
        if (enrolled.has(uid)) {
          if (!wantsMesh(pod)) await remove(uid, `phase ${pod.status?.phase ?? ''}`, pod);
          return;
        }
        const podIp = pod.status?.podIP;
        if (!wantsMesh(pod) || !podIp || pod.metadata?.deletionTimestamp) return;
        const netns = await deps.findNetns(uid);
        if (!netns) {
          deps.log.warn(
            'pod has an IP but no namespace found on this node yet; waiting for its next update',
            {
              name: pod.metadata?.name ?? '',
            },
          );
          return;
        }
        await enrol(pod, netns, podIp, 'watch');
      }),
    onCniAdd: (pod, netns, podIp) =>
      inTurn(async () => {
        if (enrolled.has(uidOf(pod)) || !wantsMesh(pod) || pod.spec?.nodeName !== deps.nodeName) return;
        await enrol(pod, netns, podIp, 'cni');
      }),
    onPodGone: (pod) => inTurn(() => remove(uidOf(pod), 'deleted')),
    enrolled: () => [...enrolled.keys()],
    idle: () => queue.then(() => undefined),
  };
}
