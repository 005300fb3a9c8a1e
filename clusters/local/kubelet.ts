import { nameComponent, waitAtMost } from '../../lib/index.ts';
import type { PodRecord } from './cluster-state.ts';
import { createKubeletContext } from './kubelet-context.ts';
import type { KubeletContext, PodRuntime } from './kubelet-context.ts';
import { startPod } from './kubelet-pod-start.ts';
import { terminatePod } from './kubelet-pod-stop.ts';
import type { KubeletOptions } from './kubelet-options.ts';
export type { KubeletOptions } from './kubelet-options.ts';

export { nodeTmpDir } from './kubelet-container-start.ts';
export { DEFAULT_GRACE_S, MINIMUM_GRACE_AFTER_PRESTOP_MS } from './kubelet-pod-stop.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

export interface Kubelet {
  /** Container processes started on this node and not yet reaped. */
  processCount(): number;
  /** The last output lines of a pod's containers (`namespace/name`), if it runs here. */
  logs(pod: string): string[];
  /** The PIDs of a pod's running container processes (by pod uid), if it runs here. */
  containerPids(podUid: string): number[];
  /**
   * Stops every container and waits for the exits (cluster teardown): SIGTERM first and up to
   * `graceMs` for them to exit on their own (close), then SIGKILL for the rest (0: at once, destroy).
   */
  destroy(graceMs?: number): Promise<void>;
}

/**
 * One node's kubelet: starts the pods scheduled to it (ZDS AddWorkload for meshed pods before the
 * containers, as istio-cni does at sandbox creation), probes readiness, and runs the termination
 * sequence (pkg/kubelet/kuberuntime killContainer): preStop within the grace period, SIGTERM, SIGKILL
 * when the grace period is over but at least 2 s after preStop; then terminal phase, DelWorkload to
 * the node's ztunnels, and the object's deletion.
 */
export function createKubelet(options: KubeletOptions): Kubelet {
  const ctx = createKubeletContext(options);
  const { state } = options;
  const { runtimes, retiredLogs } = ctx;
  const unwatch = state.watch(() => {
    syncPods(ctx);
  });
  return {
    logs: (key) => {
      const pod = state.pods.get(key);
      const runtime = pod ? runtimes.get(pod.uid) : undefined;
      return runtime?.containers.flatMap((c) => c.process.lines()) ?? retiredLogs.get(key) ?? [];
    },
    containerPids: (podUid) => runtimes.get(podUid)?.containers.map((c) => c.process.pid) ?? [],
    processCount: () => [...runtimes.values()].reduce((n, r) => n + r.containers.length, 0),
    destroy: (graceMs = 0) => destroyKubelet(ctx, { unwatch, graceMs }),
  };
}

/** Starts this node's pods that have no runtime yet, and terminates those being deleted. */
function syncPods(ctx: KubeletContext): void {
  const { state, node } = ctx.options;
  for (const pod of state.pods.values()) {
    if (pod.nodeName !== node.name) continue;
    const runtime = ctx.runtimes.get(pod.uid) ?? addPodRuntime(ctx, pod);
    if (pod.deletionAtMs !== undefined && !runtime.terminating) {
      runtime.terminating = terminatePod(ctx, pod, runtime);
      runtime.terminating.catch((err: unknown) => {
        ctx.options.onCrash(pod, '(termination)', String(err));
      });
    }
  }
}

function addPodRuntime(ctx: KubeletContext, pod: PodRecord): PodRuntime {
  const created: PodRuntime = {
    containers: [],
    probes: new AbortController(),
    volumeDirs: new Map(),
    started: Promise.resolve(),
  };
  created.started = startPod(ctx, pod, created);
  created.started.catch((err: unknown) => {
    ctx.options.onCrash(pod, '(start)', String(err));
  });
  ctx.runtimes.set(pod.uid, created);
  return created;
}

/** Teardown: no pod starts or stops any more; every container is stopped (Kubelet.destroy). */
async function destroyKubelet(
  ctx: KubeletContext,
  { unwatch, graceMs }: { unwatch: () => void; graceMs: number },
): Promise<void> {
  const { clock } = ctx.options;
  ctx.lifecycle.destroyed = true;
  unwatch();
  const all = [...ctx.runtimes.values()];
  for (const r of all) {
    r.terminating ??= Promise.resolve(); // a kill now is teardown, not a crash
    r.probes.abort();
  }
  const containers = all.flatMap((r) => r.containers);
  if (graceMs > 0) {
    for (const c of containers) c.process.kill('SIGTERM');
    await waitAtMost(clock, Promise.all(containers.map((c) => c.process.exited)), graceMs);
  }
  for (const c of containers) c.process.kill('SIGKILL');
  for (const h of ctx.holders) h.release();
  ctx.holders.clear();
  await Promise.all(all.flatMap((r) => r.containers.map((c) => c.process.exited)));
}
