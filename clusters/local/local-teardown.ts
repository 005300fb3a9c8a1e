import { rm } from 'node:fs/promises';
import type { LocalCluster } from './up/local-cluster.ts';

/**
 * Stops controllers, then every container (SIGTERM and `graceMs` to exit, then SIGKILL), then the
 * control plane, the node agents and the capture; the cpu cgroups go last.
 */
export async function tearDownLocalCluster(cluster: LocalCluster, graceMs: number): Promise<void> {
  const { parts } = cluster;
  try {
    parts.stopControllers?.();
    cluster.state.close();
    await Promise.all(parts.kubelets.map((k) => k.destroy(graceMs)));
    await Promise.all([
      parts.controlPlane?.close(),
      ...parts.agents.map((a) => a.close()),
      parts.closeCapture?.stop(),
    ]);
    parts.world?.close();
    if (parts.runDir) await rm(parts.runDir, { recursive: true, force: true });
  } finally {
    // Last, and whatever failed before: a task still in a group (a generator being stopped) is
    // moved out before the group goes.
    await parts.cpuGroups?.close();
  }
}
