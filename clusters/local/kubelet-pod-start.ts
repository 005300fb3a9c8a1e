import { nameComponent } from '../../lib/index.ts';
import type { PodNetns } from '../netns/network-world.ts';
import type { PodRecord } from './cluster-state.ts';
import { podKey } from './cluster-state.ts';
import { startContainer } from './kubelet-container-start.ts';
import type { KubeletContext, PodRuntime } from './kubelet-context.ts';
import { isDestroyed } from './kubelet-context.ts';
import { probeContainer } from './kubelet-readiness.ts';
import { mountPodVolumes } from './pod-volumes.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

/**
 * Starts a pod scheduled to this node: its sandbox (its own network namespace where it asks for one),
 * ZDS AddWorkload for a meshed pod before the containers (as istio-cni does at sandbox creation), its
 * volumes, then its containers, each probed once started; then the pod is Running.
 */
export async function startPod(ctx: KubeletContext, pod: PodRecord, runtime: PodRuntime): Promise<void> {
  const { clock, timing, state, node } = ctx.options;
  await clock.sleep(timing.kubeletReactionMs + timing.sandboxSetupMs);
  if (isDestroyed(ctx)) return;
  if (pod.netns) runtime.netns = await addPodNetns(ctx, pod);
  if (pod.isMeshed && !pod.dedicatedZtunnel) await addMeshedWorkload(ctx, pod, runtime);
  runtime.volumeDirs = await mountPodVolumes(pod, { ...ctx.options.volumes, nodeRunDir: node.runDir });
  if (isDestroyed(ctx)) return;
  await startContainers(ctx, pod, runtime);
  pod.phase = 'Running';
  state.changed();
}

function addPodNetns(ctx: KubeletContext, pod: PodRecord): Promise<PodNetns> {
  const { options } = ctx;
  const world = options.netns?.();
  if (!world) throw new Error(`${podKey(pod)} asks for a network namespace; this cluster has none`);
  return world.addPod(options.nodeIndex, pod.name, pod.podIp, {
    appAddress: pod.appIp !== pod.podIp,
    ...(options.podSysctls ? { sysctls: options.podSysctls } : {}),
    ...(pod.inpodCapture ? { capture: true } : {}),
  });
}

/** ZDS AddWorkload to the node's ztunnels, for a meshed pod the node's ztunnel serves. */
async function addMeshedWorkload(ctx: KubeletContext, pod: PodRecord, runtime: PodRuntime): Promise<void> {
  const ports = pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
  await ctx.options.nodeAgent.addWorkload({
    uid: pod.uid,
    name: pod.name,
    namespace: pod.namespace,
    serviceAccount: pod.serviceAccount,
    podIp: pod.podIp,
    appIp: pod.appIp,
    ports,
    // istio-cni hands ztunnel the pod's namespace with AddWorkload (ZDS, an fd there).
    ...(runtime.netns ? { netns: runtime.netns.path } : {}),
  });
  ctx.emit('add-workload', pod, undefined, 'node-agent');
}

/** Starts all the pod's containers at once; each is probed once it has started. */
async function startContainers(ctx: KubeletContext, pod: PodRecord, runtime: PodRuntime): Promise<void> {
  runtime.containers = pod.spec.containers.map((spec) => startContainer(ctx, pod, spec, runtime));
  await Promise.all(
    runtime.containers.map(async (c) => {
      await c.started;
      ctx.emit('container-started', pod, `${c.spec.name} (pid ${String(c.process.pid)})`);
      probeContainer(ctx, pod, c, runtime);
    }),
  );
}
