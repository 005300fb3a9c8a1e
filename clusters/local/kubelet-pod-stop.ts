import { execa } from 'execa';
import { nameComponent, waitAtMost } from '../../lib/index.ts';
import type { PodRecord } from './cluster-state.ts';
import { podKey } from './cluster-state.ts';
import { prepareAddressVanish, vanishAddress } from './kubelet-address-vanish.ts';
import type { KubeletContext, PodRuntime, RunningContainer } from './kubelet-context.ts';
import type { PendingVanish } from './vanished-address.ts';
import { DEFAULT_TERMINATION_GRACE_S } from '../manifests/workload.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

/** kubelet's minimumGracePeriodInSeconds: SIGKILL never comes sooner than 2 s after the preStop hook. */
export const MINIMUM_GRACE_AFTER_PRESTOP_MS = 2000;
/** Output kept per container after its pod is gone (for failure reports). */
const RETIRED_LOG_LINES = 500;
/** Kubernetes' default terminationGracePeriodSeconds. */
export const DEFAULT_GRACE_S = DEFAULT_TERMINATION_GRACE_S;

/** One pod's termination under way, as its parts share it. */
interface PodTermination {
  pod: PodRecord;
  runtime: PodRuntime;
  graceMs: number;
  /** A meshed pod the node's ztunnel serves (a pod with a ztunnel of its own is served by it). */
  servedByNode: boolean;
  /** The address holder being prepared, for a pod without a network namespace of its own. */
  vanishing: Promise<PendingVanish | Error> | undefined;
}

/**
 * The termination sequence (pkg/kubelet/kuberuntime killContainer): preStop within the grace period,
 * SIGTERM, SIGKILL when the grace period is over but at least 2 s after preStop; then terminal phase,
 * CNI DEL, DelWorkload to the node's ztunnels, and the object's deletion.
 */
export async function terminatePod(ctx: KubeletContext, pod: PodRecord, runtime: PodRuntime): Promise<void> {
  await ctx.options.clock.sleep(ctx.options.timing.kubeletReactionMs);
  await runtime.started.catch(() => undefined); // a pod deleted while starting is killed once started
  const graceMs = (pod.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_S) * 1000;
  // Started now, while the containers stop, so that the address can vanish the moment CNI DEL runs
  // (a pod in a namespace of its own loses its veth instead). A pod with a ztunnel of its own is
  // served by it: the node's hears nothing of it.
  const servedByNode = pod.isMeshed && !pod.dedicatedZtunnel;
  const vanishing = pod.netns ? undefined : prepareAddressVanish(ctx, pod);
  const t: PodTermination = { pod, runtime, graceMs, servedByNode, vanishing };
  // istio/ztunnel#1191 option 1's hook: the node agent tells ztunnel the termination has started.
  if (servedByNode) await ctx.options.nodeAgent.shutdownStarting(pod.uid);
  await stopPodContainers(ctx, t);
  await removePodSandbox(ctx, t);
  removePod(ctx, t);
}

/** Kills all the pod's containers at once; the pod is then terminal, Succeeded if all exited 0. */
async function stopPodContainers(ctx: KubeletContext, t: PodTermination): Promise<void> {
  const { pod, runtime } = t;
  const clean = await Promise.all(runtime.containers.map((c) => killContainer(ctx, t, c)));
  runtime.probes.abort();
  pod.phase = clean.every(Boolean) ? 'Succeeded' : 'Failed';
  pod.isReady = false;
  ctx.emit('pod-terminal', pod, pod.phase);
  ctx.options.state.changed();
}

async function removePodSandbox(ctx: KubeletContext, t: PodTermination): Promise<void> {
  const { pod, runtime, servedByNode, vanishing } = t;
  const { nodeAgent } = ctx.options;
  // CNI DEL: the plugins' DEL runs in reverse order, ztunnel's hook last-added so first (option 2
  // of istio/ztunnel#1191 drains there, while the network still exists); then the veth goes and
  // the pod's IP answers nothing; then, as istio-cni does today, DelWorkload reaches ztunnel once
  // the pod is gone, when nothing ztunnel sends on the pod's connections reaches anyone.
  if (servedByNode) await nodeAgent.cniDel(pod.uid);
  if (runtime.netns) {
    await runtime.netns.remove();
    ctx.emit('sandbox-removed', pod, `${pod.podIp} gone with the pod's veth`);
  } else if (vanishing) await vanishAddress(ctx, pod, vanishing);
  if (servedByNode) {
    await nodeAgent.delWorkload(pod.uid, { networkGone: true });
    ctx.emit('del-workload', pod, undefined, 'node-agent');
  }
}

/** The object's deletion: the pod leaves the node, its containers' last output kept for reports. */
function removePod(ctx: KubeletContext, t: PodTermination): void {
  const { pod, runtime } = t;
  ctx.options.state.pods.delete(podKey(pod));
  ctx.retiredLogs.set(
    podKey(pod),
    runtime.containers.flatMap((c) => c.process.lines(RETIRED_LOG_LINES)),
  );
  ctx.runtimes.delete(pod.uid);
  ctx.emit('pod-removed', pod);
  ctx.options.state.changed();
}

/** preStop, SIGTERM, SIGKILL once the grace is over (at least 2 s after preStop): exited with code 0? */
async function killContainer(
  ctx: KubeletContext,
  t: PodTermination,
  container: RunningContainer,
): Promise<boolean> {
  const { clock, timing } = ctx.options;
  const { pod, graceMs } = t;
  const startMs = clock.now();
  await runPreStop(ctx, t, container);
  const remainingMs = Math.max(graceMs - (clock.now() - startMs), MINIMUM_GRACE_AFTER_PRESTOP_MS);
  ctx.emit('sigterm', pod, container.spec.name);
  container.process.kill('SIGTERM');
  const exited = await waitAtMost(clock, container.process.exited, remainingMs);
  if (!exited.done) {
    ctx.emit('sigkill', pod, `${container.spec.name} after ${String(Math.round(clock.now() - startMs))} ms`);
    container.process.kill('SIGKILL');
  }
  const exit = await container.process.exited;
  await clock.sleep(timing.exitDetectionMs);
  ctx.emit(
    'container-exited',
    pod,
    `${container.spec.name}: exit code ${String(exit.exitCode)}, signal ${String(exit.signal)}`,
  );
  return exit.exitCode === 0;
}

/** The container's preStop hook (sleep or exec), cut short at the grace period. */
async function runPreStop(
  ctx: KubeletContext,
  t: PodTermination,
  container: RunningContainer,
): Promise<void> {
  const { clock } = ctx.options;
  const { pod, graceMs } = t;
  const hook = container.spec.lifecycle?.preStop;
  if (!hook) return;
  ctx.emit('prestop-started', pod, `${container.spec.name}: ${JSON.stringify(hook)}`);
  if (hook.sleep) {
    await clock.sleep(Math.min(hook.sleep.seconds * 1000, graceMs));
    return;
  }
  const [command = 'true', ...args] = hook.exec?.command ?? [];
  const child = execa(command, args, { reject: false, stdin: 'ignore', forceKillAfterDelay: false });
  const done = await waitAtMost(clock, child, graceMs);
  if (!done.done) child.kill('SIGKILL');
}
