import { KubeConfig } from '@kubernetes/client-node';
import { ErrorCode, HarnessError, makeDirectory } from '../../../lib/index.ts';
import { followRunLogs } from '../follow-run-logs.ts';
import { createClusterWatch } from '../cluster-watch.ts';
import { buildKindControlPlane, ISTIO_CNI, ISTIOD } from '../kind-manifests.ts';
import { failRun } from '../kind-run.ts';
import type { KindRun } from '../kind-run.ts';
import { waitRolledOut } from '../kind-workloads.ts';
import { createKubeApi } from '../kube-api.ts';
import { applyAll } from '../ops/apply-all.ts';
import { applyCrds } from '../ops/apply-crds.ts';
import { handleWatchUpdate } from '../watch-updates.ts';
import type { KindUp } from './kind-up.ts';

/**
 * The control-plane step: the cluster's kubeconfig, the API, the watches started, Istio's Gateway and
 * VirtualService CRDs applied and established, istiod and istio-cni's node agent applied and rolled
 * out. istiod first: ztunnel and the gateway exit when they cannot reach it (Kubernetes
 * restarts them, and restarts before Ready are tolerated, but each costs a back-off).
 */
export async function controlPlaneStep(up: KindUp): Promise<void> {
  const { run } = up;
  const { name, controlPlaneTimeoutMs } = run.settings;
  const kc = new KubeConfig();
  kc.loadFromString(await run.tools.kubeconfig(name));
  const api = createKubeApi(kc);
  const serverVersion = await api.serverVersion();
  const watch = createClusterWatch(kc);
  watch.onUpdate((update) => {
    handleWatchUpdate(run, update);
  });
  watch.onError((err) => {
    failRun(
      run,
      new HarnessError(ErrorCode.ComponentFailed, `watching kind cluster ${name} failed: ${err.message}`, {
        cause: err,
      }),
    );
  });
  run.api = api;
  run.watch = watch;
  await makeDirectory(run.settings.logDir);
  run.logFollowers = followRunLogs(run, api);
  recordServerVersion(run, serverVersion);
  await watch.start();
  const { ztunnelMode } = run.settings;
  // Istio's routing CRDs before istiod, which watches Gateways and VirtualServices only where served.
  await applyCrds(run, run.provisioned?.istioCrds ?? [], {
    timeoutMs: Math.min(controlPlaneTimeoutMs, 60_000),
    signal: up.signal,
  });
  await applyAll(run, buildKindControlPlane(ztunnelMode));
  // istio-cni too: its plugin is in every node's CNI chain before the first ambient pod starts.
  for (const ref of ztunnelMode === 'in-pod' ? [ISTIOD, ISTIO_CNI] : [ISTIOD])
    await waitRolledOut(run, ref, { timeoutMs: controlPlaneTimeoutMs, signal: up.signal }).catch(
      (err: unknown) => {
        throw run.restarts.explain(err);
      },
    );
}

/** The API server's version, and which node image ran it and where that image came from. */
function recordServerVersion(run: KindRun, serverVersion: string): void {
  const p = run.provisioned;
  run.facts['kubernetes_version'] = serverVersion;
  if (p?.nodeImage) run.facts['node_image'] = `${p.nodeImage} (${p.nodeImageSource})`;
}
