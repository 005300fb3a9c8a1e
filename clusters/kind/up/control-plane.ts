import { KubeConfig } from '@kubernetes/client-node';
import { connectRun } from '../connect-run.ts';
import { buildKindControlPlane, ISTIO_CNI, ISTIOD } from '../kind-manifests.ts';
import type { KindRun } from '../kind-run.ts';
import { waitRolledOut } from '../kind-workloads.ts';
import { applyAll } from '../ops/apply-all.ts';
import { applyCrds } from '../ops/apply-crds.ts';
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
  await connectRun(run, kc);
  recordNodeImage(run);
  const { ztunnelMode } = run.settings;
  // Istio's routing CRDs before istiod, which watches Gateways and VirtualServices only where served.
  await applyCrds(run, run.provisioned?.istioCrds ?? [], {
    timeoutMs: Math.min(controlPlaneTimeoutMs, 60_000),
    signal: up.signal,
  });
  await applyAll(
    run,
    buildKindControlPlane(ztunnelMode, {
      istioZtunnel: run.settings.istioZtunnelBinary !== undefined,
      debounceAfterMs: run.settings.debounceAfterMs,
    }),
  );
  // istio-cni too: its plugin is in every node's CNI chain before the first ambient pod starts.
  for (const ref of ztunnelMode === 'in-pod' ? [ISTIOD, ISTIO_CNI] : [ISTIOD])
    await waitRolledOut(run, ref, { timeoutMs: controlPlaneTimeoutMs, signal: up.signal }).catch(
      (err: unknown) => {
        throw run.restarts.explain(err);
      },
    );
}

/** Which node image ran the cluster and where that image came from. */
function recordNodeImage(run: KindRun): void {
  const p = run.provisioned;
  if (p?.nodeImage) run.facts['node_image'] = `${p.nodeImage} (${p.nodeImageSource})`;
}
