// kube-controller-manager's DaemonSet controller (pkg/controller/daemon): a pod per node, replaced
// by surge (daemonset-update.ts), the rollout judged as its status would say.
import { workloadKey } from '../events.ts';
import { isDaemonSetRolledOut } from '../rollout-status.ts';
import type { DaemonSetRecord } from './cluster-state.ts';
import { isActive, isTerminal, podKey } from './cluster-state.ts';
import type { ControllerContext } from './controller-context.ts';
import { planDaemonSetUpdate } from './daemonset-update.ts';
import type { DaemonNodePods } from './daemonset-update.ts';
import { createPod, deletePod, podsOf } from './pod-control.ts';
import { trackRollout } from './rollout-tracking.ts';
import { scaleIntOrPercent } from './rolling-update.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

/** One sync of a DaemonSet; says whether it created or deleted a pod (the next sync then follows). */
export function syncDaemonSet(ctx: ControllerContext, ds: DaemonSetRecord): boolean {
  const name = ds.object.metadata?.name ?? '';
  const strategy = ds.object.spec?.updateStrategy;
  const rolling = strategy?.rollingUpdate;
  const plan = planDaemonSetUpdate(podsPerNode(ctx, ds), {
    onDelete: strategy?.type === 'OnDelete',
    maxSurge: scaleIntOrPercent(rolling?.maxSurge ?? 0, ctx.nodes.length, true),
    // The API server's default is 1 (apps/v1 SetDefaults_DaemonSet).
    maxUnavailable: scaleIntOrPercent(rolling?.maxUnavailable ?? 1, ctx.nodes.length, false),
  });
  for (const node of plan.createOn)
    createPod(ctx, {
      owner: { kind: 'DaemonSet', name, templateHash: ds.templateHash },
      object: ds.object,
      nodeName: node,
    });
  const why =
    strategy?.type === 'OnDelete'
      ? 'unavailable (DaemonSet OnDelete)'
      : rolling?.maxSurge
        ? 'replaced by an available updated pod (DaemonSet surge)'
        : 'deleted before its replacement (DaemonSet maxUnavailable)';
  for (const key of plan.deletePods) {
    const pod = ctx.state.pods.get(key);
    if (pod) deletePod(ctx, pod, why);
  }
  trackDaemonSetRollout(ctx, ds);
  return plan.createOn.length + plan.deletePods.length > 0;
}

/** Each node's active pods of the DaemonSet, old template and updated, with their availability. */
function podsPerNode(ctx: ControllerContext, ds: DaemonSetRecord): DaemonNodePods[] {
  const namespace = ds.object.metadata?.namespace ?? 'default';
  const name = ds.object.metadata?.name ?? '';
  const all = podsOf(ctx, { kind: 'DaemonSet', namespace, name });
  const pods = all.filter(isActive);
  return ctx.nodes.map((n) => ({
    terminating: all.filter((p) => p.nodeName === n.name && p.deletionAtMs !== undefined && !isTerminal(p))
      .length,
    node: n.name,
    old: pods
      .filter((p) => p.nodeName === n.name && p.owner.templateHash !== ds.templateHash)
      .map((p) => ({ name: podKey(p), available: p.isReady })),
    updated: pods
      .filter((p) => p.nodeName === n.name && p.owner.templateHash === ds.templateHash)
      .map((p) => ({ name: podKey(p), available: p.isReady })),
  }));
}

function trackDaemonSetRollout(ctx: ControllerContext, ds: DaemonSetRecord): void {
  const namespace = ds.object.metadata?.namespace ?? 'default';
  const name = ds.object.metadata?.name ?? '';
  const owner = { kind: 'DaemonSet' as const, namespace, name };
  // DaemonSet status looks at the oldest non-terminal pod per node (daemon_controller.go
  // updateDaemonSetStatus), so a node counts as updated only once its old pod is terminal.
  const oldestPerNode = ctx.nodes.map(
    (n) =>
      podsOf(ctx, owner)
        .filter((p) => p.nodeName === n.name && !isTerminal(p))
        .sort((a, b) => a.createdAtMs - b.createdAtMs)[0],
  );
  trackRollout(ctx, {
    rollout: ds.rollout,
    key: workloadKey(owner),
    rolledOut: isDaemonSetRolledOut({
      desiredNumberScheduled: ctx.nodes.length,
      updatedNumberScheduled: oldestPerNode.filter((p) => p?.owner.templateHash === ds.templateHash).length,
      numberAvailable: oldestPerNode.filter((p) => p?.isReady).length,
    }),
    oldLeft: podsOf(ctx, owner).filter((p) => p.owner.templateHash !== ds.templateHash).length,
  });
}
