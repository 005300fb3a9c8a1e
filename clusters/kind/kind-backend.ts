import type { ClusterBackend } from '../backend.ts';
import { drain } from './down/drain.ts';
import { teardown } from './down/teardown.ts';
import { normalizeKindOptions } from './kind-options.ts';
import type { KindBackendOptions } from './kind-options.ts';
import { withIstioZtunnel } from './istio-ztunnel.ts';
import { createKindRun } from './kind-run.ts';
import { startClientPod } from './load/client-pod.ts';
import { createFortioPodCommand } from './load/generator-command.ts';
import { addressesOf } from './ops/addresses.ts';
import { applyAll } from './ops/apply-all.ts';
import { deleteAllPods, deletePod } from './ops/delete-pod.ts';
import { deleteWorkload } from './ops/delete-workload.ts';
import { drainNodesInTurn } from './ops/drain-nodes.ts';
import { rolloutRestart, scale, waitForRollout } from './ops/rollout.ts';
import { waitForBringUpReady } from './ops/wait-for-ready.ts';
import { bringUp, createKindStepRunner } from './up/bring-up.ts';
import { checkBeforeStarting } from './up/check-before-starting.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this folder's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kind backend');

export { CLOSE_GRACE_S, DEFAULT_INGRESS_HOST_PORT } from './kind-options.ts';
export type { KindBackendOptions } from './kind-options.ts';

/**
 * A real Kubernetes cluster in Docker: kind creates it, our images are built and loaded into it,
 * manifests go in by server-side apply, restarts are kubectl's patch, and every lifecycle event is
 * what the watches saw, stamped on the run's clock when it arrived (the server's own timestamps in
 * the detail). There is no timing model here: the latencies are measured. up() runs the bring-up's
 * steps (up/steps.ts), each a file, each timed; close() drains then tears down (down/).
 */
export function createKindBackend(options: KindBackendOptions): ClusterBackend {
  const settings = normalizeKindOptions(options);
  const run = createKindRun(settings);
  const runner = createKindStepRunner(run);
  const close = (): Promise<void> => (run.closing ??= drain(run).then(() => teardown(run)));
  // destroy(err): the cluster deleted at once (an aborted or crashed run), a drain in progress cut
  // short; a crashed run's evidence saved first.
  const destroy = (err?: Error): Promise<void> => {
    run.draining.abort();
    return (run.closing ??= teardown(run, err));
  };
  return {
    kind: 'kind',
    clock: settings.clock,
    up: (signal) => bringUp(run, { signal, runner }),
    apply: (objects) => applyAll(run, withIstioZtunnel(run, objects)),
    waitForReady: (wait) => waitForBringUpReady(run, { ...wait, runner }),
    rolloutRestart: (ref) => rolloutRestart(run, ref),
    scale: (ref, replicas) => scale(run, ref, replicas),
    deletePod: (namespace, podName) => deletePod(run, namespace, podName),
    deleteAllPods: (ref) => deleteAllPods(run, ref),
    drainNodesInTurn: (ref, drain) => drainNodesInTurn(run, ref, drain),
    deleteWorkload: (ref, wait) => deleteWorkload(run, ref, wait),
    waitForRollout: (ref, wait) => waitForRollout(run, ref, wait),
    onEvent: (listener) => run.events.on(listener),
    events: () => run.events.all(),
    onFailure(listener) {
      run.failureListeners.add(listener);
      return () => run.failureListeners.delete(listener);
    },
    addresses: () => addressesOf(run),
    // What was saved into logDir (every pod's at close, a failed run's troubled pods at destroy).
    logs: (pod) =>
      run.podLogs.lines(pod) ?? [
        `(kind: no logs saved for ${pod} yet; they are saved at close, or at a failure, into ${settings.logDir}; kubectl logs -n ${pod.replace('/', ' ')})`,
      ],
    // The ingress port free; where an engine and kind answer already, no leftover cluster of this
    // name and no given node image its cgroup version refuses (exit 2 before anything starts).
    preflight: () => checkBeforeStarting(run),
    describe: () => ({ backend: 'kind', ...run.facts }),
    // --load-from cluster: fortio as a pod outside the mesh, calling the gateway's ClusterIP.
    ...(settings.loadFrom === 'cluster' ? { generatorCommand: createFortioPodCommand(run) } : {}),
    // E3's long-lived client: kind's pod addresses are reachable only from inside the cluster.
    startClientPod: (pod) => startClientPod(run, pod),
    close,
    destroy,
  };
}
