/**
 * The DaemonSet controller's surge rolling update, after kubernetes pkg/controller/daemon/update.go
 * (rollingUpdate, maxSurge branch): on each node the old pod is deleted only once the updated pod is
 * available; at most `maxSurge` nodes have an updated pod that is not yet available at a time. An
 * old pod that is itself unavailable is replaced at once. Pure: the controller applies the plan.
 */
export interface DaemonNodePods {
  node: string;
  /** Active (not terminating) pods of an older template on this node. */
  old: { name: string; available: boolean }[];
  /** Active pods of the current template on this node. */
  updated: { name: string; available: boolean }[];
}

export interface DaemonSetPlan {
  createOn: string[];
  deletePods: string[];
}

export function planDaemonSetUpdate(nodes: DaemonNodePods[], maxSurge: number): DaemonSetPlan {
  const createOn: string[] = [];
  const deletePods: string[] = [];
  const surgeCandidates: string[] = [];
  let surging = 0;
  for (const node of nodes) {
    const updated = node.updated[0];
    if (!updated) {
      if (node.old.length === 0) createOn.push(node.node);
      else if (node.old.some((p) => !p.available)) createOn.push(node.node);
      else surgeCandidates.push(node.node);
    } else if (updated.available) {
      deletePods.push(...node.old.map((p) => p.name));
    } else if (node.old.length > 0) {
      surging++;
    }
  }
  createOn.push(...surgeCandidates.slice(0, Math.max(0, maxSurge - surging)));
  return { createOn, deletePods };
}
