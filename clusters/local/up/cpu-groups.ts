import { createCpuGroups } from '../cpu-cgroups.ts';
import type { LocalCluster } from './local-cluster.ts';

/** --cpu-isolation: each node's pods, and the load generator, in a cpu cgroup of their own. */
export async function cpuGroupsStep(cluster: LocalCluster): Promise<void> {
  if (cluster.cpuIsolation === 'none') return;
  cluster.parts.cpuGroups = await createCpuGroups({
    mode: cluster.cpuIsolation,
    // The address block tells clusters apart; the PID, a group left by a killed run from ours.
    name: `ztunnel-harness-${String(cluster.addresses.block)}-${String(process.pid)}`,
    nodes: cluster.nodes.map((n) => n.name),
  });
}
