import { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import { createClusterWatch } from '../cluster-watch.ts';
import type { ClusterWatch, WatchUpdate } from '../cluster-watch.ts';
import { buildKindControlPlane, ISTIOD } from '../kind-manifests.ts';
import type { KindTools } from '../kind-tools.ts';
import { createKubeApi } from '../kube-api.ts';
import type { KubeApi } from '../kube-api.ts';
import type { WorkloadRef } from '../../backend.ts';

export interface ControlPlaneStepOptions {
  tools: KindTools;
  name: string;
  onUpdate: (update: WatchUpdate) => void;
  fail: (err: HarnessError) => void;
  /** The backend's apply (server-side apply, workloads remembered for waitForReady). */
  apply: (api: KubeApi, objects: readonly KubernetesObject[]) => Promise<void>;
  /** Waits until the workload is rolled out, failures explained (restarts). */
  waitRolledOut: (ref: WorkloadRef) => Promise<unknown>;
  /** Told once the API and the watches exist (the backend keeps them). */
  onConnected: (api: KubeApi, watch: ClusterWatch, serverVersion: string) => void;
}

/**
 * The control-plane step: the cluster's kubeconfig, the API, the watches started, istiod applied and
 * rolled out. istiod first: ztunnel and the gateway exit when they cannot reach it (Kubernetes
 * restarts them, and restarts before Ready are tolerated, but each costs a back-off).
 */
export async function controlPlaneStep(options: ControlPlaneStepOptions): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromString(await options.tools.kubeconfig(options.name));
  const api = createKubeApi(kc);
  const serverVersion = await api.serverVersion();
  const watch = createClusterWatch(kc);
  watch.onUpdate(options.onUpdate);
  watch.onError((err) => {
    options.fail(
      new HarnessError(
        ErrorCode.ComponentFailed,
        `watching kind cluster ${options.name} failed: ${err.message}`,
        {
          cause: err,
        },
      ),
    );
  });
  options.onConnected(api, watch, serverVersion);
  await watch.start();
  await options.apply(api, buildKindControlPlane());
  await options.waitRolledOut(ISTIOD);
}
