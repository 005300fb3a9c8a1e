// The controllers and kubelets a kind cluster would run, played against the API server double so the
// kind backend can go through the backend contract without Docker: a Deployment's pods follow its
// template (pod-template-hash, a new set before the old one goes: maxSurge), a DaemonSet has one pod
// per node (surge 1, unavailable 0, as our ztunnel's; a surge pod whose host ports a pod on the node
// holds is not placed, as the scheduler leaves it Pending, so such a rollout never proceeds), their
// status counts them as the controllers do, a deleted pod's containers exit and the pod goes after a step,
// a deleted Deployment takes its pods with it (garbage collection). Every change takes `stepMs`,
// so the backend sees the intermediate states a real cluster shows through its watches.
import { createHash } from 'node:crypto';
import type { V1DaemonSet, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { ApiServerDouble } from './api-server-double.ts';

type Stored = Parameters<ApiServerDouble['put']>[1];
type Resource = Parameters<ApiServerDouble['put']>[0];

const hashOf = (template: unknown): string =>
  createHash('sha256').update(JSON.stringify(template)).digest('hex').slice(0, 10);

type Workload = V1Deployment | V1DaemonSet;

/** The controller label says which workload made a pod (`Deployment/httpbin`). */
const ownerLabel = (kind: string, w: Workload): string => `${kind}.${w.metadata?.name ?? ''}`;
const ownedBy = (pod: V1Pod, kind: string, w: Workload): boolean =>
  pod.metadata?.namespace === w.metadata?.namespace &&
  pod.metadata?.labels?.['controller-double/owner'] === ownerLabel(kind, w);
const hashLabel = (pod: V1Pod): string | undefined =>
  pod.metadata?.labels?.['pod-template-hash'] ?? pod.metadata?.labels?.['controller-revision-hash'];

/** Nodes a DaemonSet runs on: the double's nodes, else kind's two workers. */
const NODES = ['harness-test-worker', 'harness-test-worker2'];

/**
 * The host ports a pod claims: each port's hostPort, and on a hostNetwork pod every containerPort,
 * which the API server makes a hostPort (core v1 defaults, defaultHostNetworkPorts).
 */
const hostPortsOf = (pod: V1Pod): number[] =>
  (pod.spec?.containers ?? []).flatMap((c) =>
    (c.ports ?? []).flatMap((p) => {
      const host = p.hostPort ?? (pod.spec?.hostNetwork ? p.containerPort : undefined);
      return host === undefined ? [] : [host];
    }),
  );
/** The scheduler's NodePorts filter: no port the new pod claims is held by a pod on the node. */
const hasFreePorts = (pod: V1Pod, onNode: V1Pod[]): boolean => {
  const held = new Set(onNode.flatMap(hostPortsOf));
  return hostPortsOf(pod).every((port) => !held.has(port));
};

const isReady = (pod: V1Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export function startControllerDouble(
  api: ApiServerDouble,
  options: { stepMs?: number } = {},
): { stop(): void } {
  const stepMs = options.stepMs ?? 20;
  let podNumber = 0;
  let stopped = false;
  let scheduled: NodeJS.Timeout | undefined;
  const pods = () => api.list('pods') as V1Pod[];
  const store = (resource: Resource, object: V1Pod | Workload): void => {
    api.put(resource, object as unknown as Stored);
  };

  const newPod = (
    kind: 'Deployment' | 'DaemonSet',
    d: Workload,
    hash: string,
    node = NODES[0] ?? '',
  ): V1Pod => {
    podNumber += 1;
    const name = `${d.metadata?.name ?? ''}-${hash}-${String(podNumber)}`;
    const template = d.spec?.template;
    const owner =
      kind === 'Deployment'
        ? {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: `${d.metadata?.name ?? ''}-${hash}`,
            uid: 'rs',
            controller: true,
          }
        : {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: d.metadata?.name ?? '',
            uid: 'ds',
            controller: true,
          };
    return {
      metadata: {
        name,
        namespace: d.metadata?.namespace ?? 'default',
        uid: `uid-${name}`,
        labels: {
          ...template?.metadata?.labels,
          [kind === 'Deployment' ? 'pod-template-hash' : 'controller-revision-hash']: hash,
          'controller-double/owner': ownerLabel(kind, d),
        },
        ownerReferences: [owner],
      },
      spec: { ...template?.spec, containers: template?.spec?.containers ?? [], nodeName: node },
      status: {
        phase: 'Running',
        podIP: `10.244.${String(Math.floor(podNumber / 250))}.${String((podNumber % 250) + 2)}`,
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: (template?.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date() } },
        })),
      },
    };
  };

  /** A pod marked for deletion: its containers exit (not Ready, terminal), and on the next step it goes. */
  const terminate = (pod: V1Pod): void => {
    if (!pod.metadata?.deletionTimestamp) return;
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    if (pod.status?.phase === 'Succeeded') {
      api.remove('pods', ns, name);
      return;
    }
    store('pods', {
      ...pod,
      status: {
        ...pod.status,
        phase: 'Succeeded',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: (pod.status?.containerStatuses ?? []).map((s) => ({
          ...s,
          ready: false,
          state: { terminated: { exitCode: 0, finishedAt: new Date() } },
        })),
      },
    });
  };

  const markDeleting = (pod: V1Pod): void => {
    const graceS = pod.spec?.terminationGracePeriodSeconds ?? 30;
    store('pods', {
      ...pod,
      metadata: {
        ...pod.metadata,
        deletionTimestamp: new Date(Date.now() + graceS * 1000),
        deletionGracePeriodSeconds: graceS,
      },
    });
  };

  /** The deployment controller, one step: surge the new set, then retire the old; then the status. */
  const reconcile = (d: V1Deployment): void => {
    if (collect('Deployment', d)) return;
    const owned = pods().filter((p) => ownedBy(p, 'Deployment', d) && !p.metadata?.deletionTimestamp);
    const hash = hashOf(d.spec?.template);
    const desired = d.spec?.replicas ?? 1;
    const current = owned.filter((p) => hashLabel(p) === hash);
    const old = owned.filter((p) => hashLabel(p) !== hash);
    if (current.length < desired) store('pods', newPod('Deployment', d, hash));
    else if (current.length > desired) markDeleting(current[current.length - 1] as V1Pod);
    else if (old.length > 0 && current.every(isReady)) markDeleting(old[0] as V1Pod);
    const live = pods().filter((p) => ownedBy(p, 'Deployment', d) && !p.metadata?.deletionTimestamp);
    const updated = live.filter((p) => hashLabel(p) === hash);
    const status = {
      observedGeneration: d.metadata?.generation ?? 1,
      replicas: live.length,
      updatedReplicas: updated.length,
      readyReplicas: live.filter(isReady).length,
      availableReplicas: live.filter(isReady).length,
    };
    if (JSON.stringify(status) !== JSON.stringify(d.status)) store('deployments', { ...d, status });
  };

  /** A workload being deleted takes its pods (garbage collection), then goes; true while it is. */
  const collect = (kind: 'Deployment' | 'DaemonSet', w: Workload): boolean => {
    if (!w.metadata?.deletionTimestamp) return false;
    for (const p of pods().filter((pod) => ownedBy(pod, kind, w) && !pod.metadata?.deletionTimestamp))
      markDeleting(p);
    if (!pods().some((p) => ownedBy(p, kind, w)))
      api.remove(
        kind === 'Deployment' ? 'deployments' : 'daemonsets',
        w.metadata.namespace ?? '',
        w.metadata.name ?? '',
      );
    return true;
  };

  /** The DaemonSet controller, one step: per node, a new pod beside the old one, then the old one goes. */
  const reconcileDaemonSet = (ds: V1DaemonSet): void => {
    if (collect('DaemonSet', ds)) return;
    const hash = hashOf(ds.spec?.template);
    const live = () => pods().filter((p) => ownedBy(p, 'DaemonSet', ds) && !p.metadata?.deletionTimestamp);
    for (const node of NODES) {
      const onNode = live().filter((p) => p.spec?.nodeName === node);
      const current = onNode.find((p) => hashLabel(p) === hash);
      if (!current) {
        const pod = newPod('DaemonSet', ds, hash, node);
        // Terminating pods hold their ports until they are gone.
        const everyOnNode = pods().filter((p) => p.spec?.nodeName === node);
        if (hasFreePorts(pod, everyOnNode)) store('pods', pod);
      } else if (isReady(current)) for (const old of onNode.filter((p) => p !== current)) markDeleting(old);
    }
    const all = live();
    const status = {
      observedGeneration: ds.metadata?.generation ?? 1,
      desiredNumberScheduled: NODES.length,
      currentNumberScheduled: new Set(all.map((p) => p.spec?.nodeName)).size,
      updatedNumberScheduled: all.filter((p) => hashLabel(p) === hash).length,
      numberReady: all.filter(isReady).length,
      numberAvailable: all.filter(isReady).length,
      numberMisscheduled: 0,
    };
    if (JSON.stringify(status) !== JSON.stringify(ds.status)) store('daemonsets', { ...ds, status });
  };

  const step = (): void => {
    scheduled = undefined;
    if (stopped) return;
    for (const pod of pods()) terminate(pod);
    for (const d of api.list('deployments') as V1Deployment[]) reconcile(d);
    for (const ds of api.list('daemonsets') as V1DaemonSet[]) reconcileDaemonSet(ds);
  };
  api.onChange(() => {
    if (!stopped && !scheduled) scheduled = setTimeout(step, stepMs);
  });
  return {
    stop() {
      stopped = true;
      clearTimeout(scheduled);
    },
  };
}
