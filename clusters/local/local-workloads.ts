// The local API server's workload operations: apply, readiness, rollout restart, scale, delete, and
// waiting for a rollout, on the cluster's state (the controllers and kubelets act on the changes).
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { badInput } from '../../lib/index.ts';
import type { ClusterBackend, RolloutResult, WorkloadRef } from '../backend.ts';
import { workloadKey } from '../events.ts';
import type { ClusterObject } from '../manifests/index.ts';
import { buildRolloutRestartPatch, isDaemonSet, isDeployment, isService } from '../manifests/index.ts';
import { waitForEvent } from '../wait-for-event.ts';
import { isActive, podKey } from './cluster-state.ts';
import type { DaemonSetRecord, DeploymentRecord } from './cluster-state.ts';
import { hashTemplate } from './pod-factory.ts';
import type { LocalCluster } from './up/local-cluster.ts';
import { validateClusterObject } from './validate-objects.ts';

type WorkloadOps = Pick<
  ClusterBackend,
  'apply' | 'waitForReady' | 'rolloutRestart' | 'scale' | 'deletePod' | 'deleteAllPods' | 'waitForRollout'
>;

function workloadOf(cluster: LocalCluster, ref: WorkloadRef): DeploymentRecord | DaemonSetRecord {
  const key = `${ref.namespace}/${ref.name}`;
  const { state } = cluster;
  const found = ref.kind === 'Deployment' ? state.deployments.get(key) : state.daemonSets.get(key);
  if (!found)
    throw badInput(
      `${ref.kind} ${key}`,
      'an applied workload',
      'nothing by that name',
      'apply its manifest first',
    );
  return found;
}

function apply(cluster: LocalCluster, objects: ClusterObject[]): void {
  const { state, addresses } = cluster;
  const extraImages = new Set(cluster.options.images?.keys());
  for (const object of objects) validateClusterObject(object, extraImages);
  for (const object of structuredClone(objects)) {
    const key = `${object.metadata?.namespace ?? 'default'}/${object.metadata?.name ?? ''}`;
    if (isService(object)) {
      state.services.set(key, { object, vip: state.services.get(key)?.vip ?? addresses.nextVip() });
    } else if (isDeployment(object)) {
      const existing = state.deployments.get(key);
      state.deployments.set(key, {
        object,
        templateHash: hashTemplate(object.spec?.template),
        replicaSets: existing?.replicaSets ?? [],
      });
    } else if (isDaemonSet(object)) {
      state.daemonSets.set(key, { object, templateHash: hashTemplate(object.spec?.template) });
    }
  }
  state.changed();
}

function isWorkloadReady(
  cluster: LocalCluster,
  w: DeploymentRecord | DaemonSetRecord,
  kind: 'Deployment' | 'DaemonSet',
): boolean {
  const namespace = w.object.metadata?.namespace ?? 'default';
  const pods = [...cluster.state.pods.values()].filter(
    (p) => p.owner.kind === kind && p.owner.name === w.object.metadata?.name && p.namespace === namespace,
  );
  const current = pods.filter((p) => isActive(p) && p.isReady && p.owner.templateHash === w.templateHash);
  const want =
    kind === 'DaemonSet' ? cluster.nodes.length : ((w as DeploymentRecord).object.spec?.replicas ?? 1);
  return current.length === want && pods.length === want;
}

/** Every Ready pod has reached the data plane as HEALTHY (a gateway can route to it). */
function isReadinessPushed(cluster: LocalCluster): boolean {
  const healthy = new Set(
    cluster.parts.controlPlane
      ?.lastPushed()
      .workloads.filter((w) => w.status === 'HEALTHY')
      .map((w) => w.uid),
  );
  return [...cluster.state.pods.values()]
    .filter((p) => p.isReady && isActive(p))
    .every((p) => healthy.has(p.uid));
}

function isClusterReady(cluster: LocalCluster): boolean {
  const { state } = cluster;
  return (
    [...state.deployments.values()].every((d) => isWorkloadReady(cluster, d, 'Deployment')) &&
    [...state.daemonSets.values()].every((d) => isWorkloadReady(cluster, d, 'DaemonSet')) &&
    isReadinessPushed(cluster)
  );
}

/** `kubectl rollout restart`: the template's restartedAt annotation, a new template hash. */
function restart(cluster: LocalCluster, ref: WorkloadRef): void {
  const { clock } = cluster;
  const workload = workloadOf(cluster, ref);
  const template: V1PodTemplateSpec = workload.object.spec?.template ?? {};
  const patch = buildRolloutRestartPatch(new Date(clock.now() + clock.wallOffsetMs));
  template.metadata = {
    ...template.metadata,
    annotations: { ...template.metadata?.annotations, ...patch.spec.template.metadata.annotations },
  };
  workload.templateHash = hashTemplate(template);
  workload.rollout = { startedAtMs: clock.now() };
  cluster.emit('rollout-started', workloadKey(ref), { detail: 'rollout restart' });
  cluster.state.changed();
}

function scale(cluster: LocalCluster, ref: WorkloadRef, replicas: number): void {
  const workload = workloadOf(cluster, ref) as DeploymentRecord;
  if (ref.kind !== 'Deployment' || !workload.object.spec)
    throw badInput('the workload to scale', 'a Deployment', `${ref.kind} ${ref.name}`);
  if (!Number.isInteger(replicas) || replicas < 0)
    throw badInput('replicas', 'a non-negative integer', replicas);
  workload.object.spec.replicas = replicas;
  cluster.state.changed();
}

function deletePod(cluster: LocalCluster, namespace: string, name: string): void {
  const { clock, state } = cluster;
  const pod = state.pods.get(`${namespace}/${name}`);
  if (!pod) throw badInput('the pod to delete', 'an existing pod', `${namespace}/${name}`);
  pod.deletionAtMs ??= clock.now();
  cluster.emit('pod-deleting', podKey(pod), {
    source: 'api-server',
    node: pod.nodeName,
    detail: 'deleted by the harness',
  });
  state.changed();
}

/** The operations, each failing by rejecting (never throwing synchronously). */
export function localWorkloadOps(cluster: LocalCluster): WorkloadOps {
  const { events, clock } = cluster;
  const later = <T>(f: () => T): Promise<T> => Promise.resolve().then(f);
  return {
    apply: (objects) =>
      later(() => {
        apply(cluster, objects);
      }),
    waitForReady: ({ timeoutMs, signal }) =>
      waitForEvent({
        events,
        clock,
        timeoutMs,
        what: 'every workload to be Ready',
        ...(signal ? { signal } : {}),
        check: () => (isClusterReady(cluster) ? true : undefined),
      }).then(() => undefined),
    rolloutRestart: (ref) =>
      later(() => {
        restart(cluster, ref);
      }),
    scale: (ref, replicas) =>
      later(() => {
        scale(cluster, ref, replicas);
      }),
    deletePod: (namespace, name) =>
      later(() => {
        deletePod(cluster, namespace, name);
      }),
    deleteAllPods: (ref) =>
      later(() => {
        const pods = [...cluster.state.pods.values()].filter(
          (p) =>
            isActive(p) &&
            p.owner.kind === ref.kind &&
            p.owner.name === ref.name &&
            p.namespace === ref.namespace,
        );
        for (const p of pods) deletePod(cluster, p.namespace, p.name);
        return pods.length;
      }),
    waitForRollout: (ref, { timeoutMs, untilOldPodsGone, signal }) =>
      later(() => workloadOf(cluster, ref)).then((workload) =>
        waitForEvent<RolloutResult>({
          events,
          clock,
          timeoutMs,
          what: `the rollout of ${ref.kind} ${ref.namespace}/${ref.name}`,
          ...(signal ? { signal } : {}),
          check: () => {
            const r = workload.rollout;
            if (r?.statusCompleteAtMs === undefined) return undefined;
            if (untilOldPodsGone && r.oldPodsGoneAtMs === undefined) return undefined;
            return {
              startedAtMs: r.startedAtMs,
              statusCompleteAtMs: r.statusCompleteAtMs,
              ...(r.oldPodsGoneAtMs === undefined ? {} : { oldPodsGoneAtMs: r.oldPodsGoneAtMs }),
            };
          },
        }),
      ),
  };
}
