// kube-controller-manager's Deployment controller (pkg/controller/deployment): the rolling update
// sets each ReplicaSet's replicas, the ReplicaSet controller makes the pods, the rollout is judged.
import { workloadKey } from '../events.ts';
import { isDeploymentRolledOut } from '../rollout-status.ts';
import type { DeploymentRecord, PodRecord } from './cluster-state.ts';
import { isActive } from './cluster-state.ts';
import type { ControllerContext } from './controller-context.ts';
import { podsOf } from './pod-control.ts';
import { activeOf, syncReplicaSets } from './replicaset-controller.ts';
import { trackRollout } from './rollout-tracking.ts';
import { planRollingUpdate } from './rolling-update.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

interface DeploymentView {
  deployment: DeploymentRecord;
  replicas: number;
  /** The Deployment's pods as read at the start of the sync. */
  pods: PodRecord[];
}

/** One sync of a Deployment; says whether it changed anything (the next sync then follows). */
export function syncDeployment(ctx: ControllerContext, d: DeploymentRecord): boolean {
  const namespace = d.object.metadata?.namespace ?? 'default';
  const name = d.object.metadata?.name ?? '';
  const view: DeploymentView = {
    deployment: d,
    replicas: d.object.spec?.replicas ?? 1,
    pods: podsOf(ctx, { kind: 'Deployment', namespace, name }),
  };
  let changed = scaleReplicaSets(view);
  changed = syncReplicaSets(ctx, view) || changed;
  trackDeploymentRollout(ctx, view);
  return changed;
}

/** The rolling update's step: the new ReplicaSet (made if missing) and the old ones get their replicas. */
function scaleReplicaSets(view: DeploymentView): boolean {
  const { deployment: d, replicas, pods } = view;
  let newRs = d.replicaSets.find((rs) => rs.templateHash === d.templateHash);
  if (!newRs) {
    newRs = { templateHash: d.templateHash, specReplicas: 0, createdSeq: d.replicaSets.length };
    d.replicaSets.push(newRs);
  }
  const oldRss = d.replicaSets.filter((rs) => rs !== newRs).sort((a, b) => a.createdSeq - b.createdSeq);
  const counts = (hash: string, specReplicas: number) => ({
    specReplicas,
    available: activeOf(pods, hash).filter((p) => p.isReady).length,
  });
  const rolling = d.object.spec?.strategy?.rollingUpdate;
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
  return changed;
}

function trackDeploymentRollout(ctx: ControllerContext, view: DeploymentView): void {
  const { deployment: d, replicas, pods } = view;
  const namespace = d.object.metadata?.namespace ?? 'default';
  const name = d.object.metadata?.name ?? '';
  const updated = activeOf(pods, d.templateHash);
  const allActive = pods.filter(isActive);
  trackRollout(ctx, {
    rollout: d.rollout,
    key: workloadKey({ kind: 'Deployment', namespace, name }),
    rolledOut: isDeploymentRolledOut({
      replicas,
      statusReplicas: allActive.length,
      updatedReplicas: updated.length,
      availableReplicas: allActive.filter((p) => p.isReady).length,
    }),
    oldLeft: pods.filter((p) => p.owner.templateHash !== d.templateHash).length,
  });
}
