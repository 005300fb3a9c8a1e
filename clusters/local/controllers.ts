import type { V1DaemonSet, V1Deployment } from '@kubernetes/client-node';
import type { Clock } from '../../lib/index.ts';
import { createEmitter, workloadKey } from '../events.ts';
import type { EventLog } from '../events.ts';
import { NODE_LABEL } from '../manifests/index.ts';
import type { AddressPool } from './address-pool.ts';
import type {
  ClusterState,
  DaemonSetRecord,
  DeploymentRecord,
  PodRecord,
  RolloutRecord,
} from './cluster-state.ts';
import { isActive, isTerminal, podKey } from './cluster-state.ts';
import { planDaemonSetUpdate } from './daemonset-update.ts';
import { createPodRecord } from './pod-factory.ts';
import { isDaemonSetRolledOut, isDeploymentRolledOut } from '../rollout-status.ts';
import { planRollingUpdate, scaleIntOrPercent } from './rolling-update.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

export interface ControllerOptions {
  state: ClusterState;
  clock: Clock;
  events: EventLog;
  addresses: AddressPool;
  nodes: { name: string; ip: string }[];
  /** istio/ztunnel in shared mode is the node's ztunnel (pod-factory.ts). */
  istioShared?: boolean;
}

/**
 * kube-controller-manager's Deployment, ReplicaSet and DaemonSet controllers over the local state.
 * Each watch event runs one sync of every workload; a sync's own changes trigger the next one.
 */
export function startControllers(options: ControllerOptions): () => void {
  const { state, clock, events } = options;
  // Pods are created and deleted through the API server; rollouts are the controller's to judge.
  const emit = createEmitter(events, clock, 'api-server');
  const podsOf = (kind: PodRecord['owner']['kind'], namespace: string, name: string): PodRecord[] =>
    [...state.pods.values()].filter(
      (p) => p.owner.kind === kind && p.owner.name === name && p.namespace === namespace,
    );

  const createPod = (
    owner: PodRecord['owner'],
    object: V1Deployment | V1DaemonSet,
    nodeName?: string,
  ): void => {
    const namespace = object.metadata?.namespace ?? 'default';
    // Scheduler stand-in: the named node (DaemonSet), else among the nodes the nodeSelector allows
    // (only the ztunnel-harness/node label), the one with the fewest of the owner's pods.
    const load = (n: string): number =>
      podsOf(owner.kind, namespace, owner.name).filter((p) => p.nodeName === n && isActive(p)).length;
    const selector = Object.entries(object.spec?.template.spec?.nodeSelector ?? {});
    const eligible = options.nodes.filter((n) =>
      selector.every(([k, v]) => k === NODE_LABEL && v === n.name),
    );
    const node =
      options.nodes.find((n) => n.name === nodeName) ??
      [...eligible].sort((a, b) => load(a.name) - load(b.name))[0];
    if (!node || !object.spec?.template) return;
    const pod = createPodRecord({
      owner,
      namespace,
      template: object.spec.template,
      node,
      nodeIndex: options.nodes.indexOf(node) + 1,
      addresses: options.addresses,
      nowMs: clock.now(),
      ...(options.istioShared ? { istioShared: true } : {}),
    });
    state.pods.set(podKey(pod), pod);
    emit('pod-created', podKey(pod), { detail: `${pod.podIp} (app ${pod.appIp})`, node: node.name });
  };

  const deletePod = (pod: PodRecord, why: string): void => {
    pod.deletionAtMs = clock.now();
    emit('pod-deleting', podKey(pod), { detail: why, node: pod.nodeName });
  };

  const trackRollout = (
    rollout: RolloutRecord | undefined,
    key: string,
    rolledOut: boolean,
    oldLeft: number,
  ): void => {
    if (!rollout) return;
    if (rolledOut && rollout.statusCompleteAtMs === undefined) {
      rollout.statusCompleteAtMs = clock.now();
      emit('rollout-status-complete', key, {
        detail: `old pods still present: ${String(oldLeft)}`,
        source: 'controller',
      });
    }
    if (rollout.statusCompleteAtMs !== undefined && oldLeft === 0 && rollout.oldPodsGoneAtMs === undefined) {
      rollout.oldPodsGoneAtMs = clock.now();
      emit('rollout-old-pods-gone', key, { source: 'controller' });
    }
  };

  const syncDeployment = (d: DeploymentRecord): boolean => {
    const spec = d.object.spec;
    const namespace = d.object.metadata?.namespace ?? 'default';
    const name = d.object.metadata?.name ?? '';
    const replicas = spec?.replicas ?? 1;
    const pods = podsOf('Deployment', namespace, name);
    const of = (hash: string) => pods.filter((p) => p.owner.templateHash === hash && isActive(p));
    let newRs = d.replicaSets.find((rs) => rs.templateHash === d.templateHash);
    if (!newRs) {
      newRs = { templateHash: d.templateHash, specReplicas: 0, createdSeq: d.replicaSets.length };
      d.replicaSets.push(newRs);
    }
    const oldRss = d.replicaSets.filter((rs) => rs !== newRs).sort((a, b) => a.createdSeq - b.createdSeq);
    const counts = (hash: string, specReplicas: number) => ({
      specReplicas,
      available: of(hash).filter((p) => p.isReady).length,
    });
    const rolling = spec?.strategy?.rollingUpdate;
    const plan = planRollingUpdate({
      replicas,
      maxSurge: rolling?.maxSurge ?? '25%',
      maxUnavailable: rolling?.maxUnavailable ?? '25%',
      newRs: counts(newRs.templateHash, newRs.specReplicas),
      oldRss: oldRss.map((rs) => counts(rs.templateHash, rs.specReplicas)),
    });
    let changed = plan.newRsReplicas !== newRs.specReplicas;
    newRs.specReplicas = plan.newRsReplicas;
    oldRss.forEach((rs, i) => {
      const target = plan.oldRsReplicas[i] ?? rs.specReplicas;
      changed ||= target !== rs.specReplicas;
      rs.specReplicas = target;
    });
    // ReplicaSet controllers: create to spec; delete surplus, not-Ready first, then most recently Ready.
    const owner = { kind: 'Deployment' as const, name };
    for (const rs of d.replicaSets) {
      const active = of(rs.templateHash);
      for (let n = active.length; n < rs.specReplicas; n++)
        createPod({ ...owner, templateHash: rs.templateHash }, d.object);
      const victims = active.sort(
        (a, b) => Number(a.isReady) - Number(b.isReady) || (b.readySinceMs ?? 0) - (a.readySinceMs ?? 0),
      );
      for (const victim of victims.slice(0, Math.max(0, active.length - rs.specReplicas)))
        deletePod(victim, 'scaled down by the ReplicaSet controller');
      changed ||= active.length !== rs.specReplicas;
    }
    const updated = of(d.templateHash);
    const allActive = pods.filter(isActive);
    trackRollout(
      d.rollout,
      workloadKey({ kind: 'Deployment', namespace, name }),
      isDeploymentRolledOut({
        replicas,
        statusReplicas: allActive.length,
        updatedReplicas: updated.length,
        availableReplicas: allActive.filter((p) => p.isReady).length,
      }),
      pods.filter((p) => p.owner.templateHash !== d.templateHash).length,
    );
    return changed;
  };

  const syncDaemonSet = (ds: DaemonSetRecord): boolean => {
    const namespace = ds.object.metadata?.namespace ?? 'default';
    const name = ds.object.metadata?.name ?? '';
    const pods = podsOf('DaemonSet', namespace, name).filter(isActive);
    const perNode = options.nodes.map((n) => ({
      node: n.name,
      old: pods
        .filter((p) => p.nodeName === n.name && p.owner.templateHash !== ds.templateHash)
        .map((p) => ({ name: podKey(p), available: p.isReady })),
      updated: pods
        .filter((p) => p.nodeName === n.name && p.owner.templateHash === ds.templateHash)
        .map((p) => ({ name: podKey(p), available: p.isReady })),
    }));
    const rolling = ds.object.spec?.updateStrategy?.rollingUpdate;
    const plan = planDaemonSetUpdate(
      perNode,
      scaleIntOrPercent(rolling?.maxSurge ?? 0, options.nodes.length, true),
    );
    for (const node of plan.createOn)
      createPod({ kind: 'DaemonSet', name, templateHash: ds.templateHash }, ds.object, node);
    for (const key of plan.deletePods) {
      const pod = state.pods.get(key);
      if (pod) deletePod(pod, 'replaced by an available updated pod (DaemonSet surge)');
    }
    // DaemonSet status looks at the oldest non-terminal pod per node (daemon_controller.go
    // updateDaemonSetStatus), so a node counts as updated only once its old pod is terminal.
    const oldestPerNode = options.nodes.map(
      (n) =>
        podsOf('DaemonSet', namespace, name)
          .filter((p) => p.nodeName === n.name && !isTerminal(p))
          .sort((a, b) => a.createdAtMs - b.createdAtMs)[0],
    );
    trackRollout(
      ds.rollout,
      workloadKey({ kind: 'DaemonSet', namespace, name }),
      isDaemonSetRolledOut({
        desiredNumberScheduled: options.nodes.length,
        updatedNumberScheduled: oldestPerNode.filter((p) => p?.owner.templateHash === ds.templateHash).length,
        numberAvailable: oldestPerNode.filter((p) => p?.isReady).length,
      }),
      podsOf('DaemonSet', namespace, name).filter((p) => p.owner.templateHash !== ds.templateHash).length,
    );
    return plan.createOn.length + plan.deletePods.length > 0;
  };

  const sync = (): void => {
    let changed = false;
    for (const d of state.deployments.values()) changed = syncDeployment(d) || changed;
    for (const ds of state.daemonSets.values()) changed = syncDaemonSet(ds) || changed;
    if (changed) state.changed();
  };
  return state.watch(sync);
}
