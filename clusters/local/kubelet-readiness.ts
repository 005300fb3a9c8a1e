import { nameComponent } from '../../lib/index.ts';
import type { PodRecord } from './cluster-state.ts';
import type { KubeletContext, PodRuntime, RunningContainer } from './kubelet-context.ts';
import { runReadinessProbe } from './readiness-prober.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

/** The pod is ready when all its containers are: a change is an event and a state change. */
export function setPodReady(ctx: KubeletContext, pod: PodRecord, runtime: PodRuntime): void {
  const ready = runtime.containers.every((c) => c.isReady);
  if (ready === pod.isReady) return;
  pod.isReady = ready;
  if (ready) pod.readySinceMs = ctx.options.clock.now();
  ctx.emit(ready ? 'pod-ready' : 'pod-not-ready', pod);
  ctx.options.state.changed();
}

/** A started container's readiness: probed over HTTP where its spec says so, else ready at once. */
export function probeContainer(
  ctx: KubeletContext,
  pod: PodRecord,
  container: RunningContainer,
  runtime: PodRuntime,
): void {
  const p = container.spec.readinessProbe;
  if (!p?.httpGet) {
    container.isReady = true;
    setPodReady(ctx, pod, runtime);
    return;
  }
  void runReadinessProbe({
    clock: ctx.options.clock,
    signal: runtime.probes.signal,
    spec: {
      // Kubelet probes are not captured by ambient (istio-cni exempts the kubelet's SNAT address):
      // in a captured namespace the probe comes from that address.
      host: pod.appIp,
      ...(pod.inpodCapture ? { localAddress: ctx.options.netns?.()?.probeAddress } : {}),
      port: Number(p.httpGet.port),
      path: p.httpGet.path ?? '/',
      periodMs: (p.periodSeconds ?? 10) * 1000,
      timeoutMs: (p.timeoutSeconds ?? 1) * 1000,
      failureThreshold: p.failureThreshold ?? 3,
      successThreshold: p.successThreshold ?? 1,
      initialDelayMs: (p.initialDelaySeconds ?? 0) * 1000,
    },
    onResult: (ready) => {
      container.isReady = ready;
      setPodReady(ctx, pod, runtime);
    },
  });
}
