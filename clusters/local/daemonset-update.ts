/**
 * The DaemonSet controller's updates, after kubernetes pkg/controller/daemon (daemon_controller.go
 * podsShouldBeOnNode, update.go rollingUpdate). Surge (maxSurge > 0): on each node the old pod is
 * deleted only once the updated pod is available; at most `maxSurge` nodes have an updated pod that
 * is not yet available at a time; an old pod that is itself unavailable is replaced at once.
 * Without surge (maxSurge 0, and OnDelete) a node gets a pod only once it has none at all, a
 * terminating one included; RollingUpdate then deletes available old pods on at most
 * `maxUnavailable` nodes at a time (unavailable old pods at once); OnDelete deletes none. Pure: the
 * controller applies the plan.
 */
export interface DaemonNodePods {
  node: string;
  /** Active (not terminating) pods of an older template on this node. */
  old: { name: string; available: boolean }[];
  /** Active pods of the current template on this node. */
  updated: { name: string; available: boolean }[];
  /** Pods of either template deleted and not yet gone. */
  terminating: number;
}

export interface DaemonSetStrategy {
  onDelete: boolean;
  maxSurge: number;
  maxUnavailable: number;
}

export interface DaemonSetPlan {
  createOn: string[];
  deletePods: string[];
}

export function planDaemonSetUpdate(nodes: DaemonNodePods[], strategy: DaemonSetStrategy): DaemonSetPlan {
  if (strategy.onDelete || strategy.maxSurge === 0) return planWithoutSurge(nodes, strategy);
  const { maxSurge } = strategy;
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

function planWithoutSurge(nodes: DaemonNodePods[], strategy: DaemonSetStrategy): DaemonSetPlan {
  const empty = (n: DaemonNodePods): boolean =>
    n.old.length === 0 && n.updated.length === 0 && n.terminating === 0;
  const createOn = nodes.filter(empty).map((n) => n.node);
  if (strategy.onDelete) return { createOn, deletePods: [] };
  const deletePods: string[] = [];
  const candidates: string[] = [];
  let unavailable = 0;
  for (const node of nodes) {
    const [updated] = node.updated;
    const [old] = node.old;
    if (updated && !old) {
      if (!updated.available) unavailable++;
    } else if (old && !updated) {
      if (old.available) candidates.push(old.name);
      else deletePods.push(old.name);
    } else unavailable++; // none yet (or both): the pod being replaced
  }
  deletePods.push(...candidates.slice(0, Math.max(0, strategy.maxUnavailable - unavailable)));
  return { createOn, deletePods };
}
