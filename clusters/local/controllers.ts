import type { ControllerOptions } from './controller-context.ts';
import { createControllerContext } from './controller-context.ts';
import { syncDaemonSet } from './daemonset-controller.ts';
import { syncDeployment } from './deployment-controller.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

export type { ControllerOptions } from './controller-context.ts';

/**
 * kube-controller-manager's Deployment, ReplicaSet and DaemonSet controllers over the local state,
 * one file each (deployment-controller.ts, replicaset-controller.ts, daemonset-controller.ts).
 * Each watch event runs one sync of every workload; a sync's own changes trigger the next one.
 */
export function startControllers(options: ControllerOptions): () => void {
  const ctx = createControllerContext(options);
  const sync = (): void => {
    let changed = false;
    for (const d of options.state.deployments.values()) changed = syncDeployment(ctx, d) || changed;
    for (const ds of options.state.daemonSets.values()) changed = syncDaemonSet(ctx, ds) || changed;
    if (changed) options.state.changed();
  };
  return options.state.watch(sync);
}
