import type { ClusterBackend, WorkloadRef } from '../backend.ts';
import { createExistingBackend } from '../cluster/existing-backend.ts';
import { teardown } from '../kind/down/teardown.ts';
import { normalizeKindOptions } from '../kind/kind-options.ts';
import type { KindBackendOptions } from '../kind/kind-options.ts';
import { createKindRun } from '../kind/kind-run.ts';
import { bringUp, createKindStepRunner } from '../kind/up/bring-up.ts';
import { checkBeforeStarting } from '../kind/up/check-before-starting.ts';
import { ISTIO_CNI_DAEMONSET } from '../manifests/istio-cni-daemonset.ts';
import { ISTIO_GATEWAY, ISTIO_NAMESPACE } from './istio-charts.ts';
import { ISTIO_MODULE } from './istio-release.ts';
import { KIND_ISTIO_UP_STEPS } from './istio-steps.ts';

/**
 * A kind cluster with Istio's own control plane (--control-plane istio, issue 46): kind brings the
 * cluster up as always (our node image, kind pinned, nothing pulled), Istio's istiod, istio-cni and
 * gateway are built from the Go module proxy and installed with Istio's charts, istio/ztunnel's binary
 * (ZTUNNEL_BINARY) is the ztunnel DaemonSet; then the run is the existing-cluster backend's against
 * it (clusters/cluster: a namespace of its own, an Istio Gateway and VirtualService, fortio as a pod,
 * the watches and log followers), and at the end the cluster goes as a kind run's does.
 */
export function createKindIstioBackend(
  options: KindBackendOptions,
  faultTarget?: WorkloadRef,
): ClusterBackend {
  const settings = normalizeKindOptions(options);
  const run = createKindRun(settings);
  const runner = createKindStepRunner(run);
  const cluster = createExistingBackend({
    clock: settings.clock,
    kubeconfig: settings.kubeconfigPath,
    context: `kind-${settings.name}`,
    istioNamespace: ISTIO_NAMESPACE,
    gateway: ISTIO_GATEWAY,
    // The cluster is the run's own: its ztunnel is the harness's to restart, when the fault does
    // (without the target the write guard refused E1's, E3's and istio-ztunnel-restart's restart).
    allowZtunnelRestart: true,
    // istio-cni's DaemonSet too, when a cni-* scenario restarts or deletes it (Istio's own, here).
    allowIstioCniFaults: faultTarget?.name === ISTIO_CNI_DAEMONSET.name,
    ...(faultTarget ? { faultTarget } : {}),
    logDir: settings.logDir,
    stepLogDir: settings.stepLogDir,
    ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
    ...(settings.onLogs ? { onLogs: settings.onLogs } : {}),
    ...(settings.onStep ? { onStep: settings.onStep } : {}),
  });
  // The existing-cluster backend closes its namespace first; the cluster itself goes after.
  const close = (): Promise<void> => (run.closing ??= cluster.close().finally(() => teardown(run)));
  return {
    ...cluster,
    kind: 'kind',
    async up(signal) {
      await bringUp(run, { signal, runner, steps: KIND_ISTIO_UP_STEPS });
      try {
        await cluster.up(signal);
      } catch (err) {
        // The cluster goes with what the run put in it; a later close() or destroy() awaits this.
        await (run.closing ??= teardown(run, err));
        throw err;
      }
    },
    // Before anything starts: kind's (the port, no leftover cluster); the cluster's own check is up()'s.
    preflight: () => checkBeforeStarting(run),
    describe: () => ({
      ...cluster.describe(),
      // kind's own facts where it has them (the cluster's Kubernetes version is the API's).
      ...Object.fromEntries(Object.entries(run.facts).filter(([, v]) => v !== '')),
      backend: 'kind',
      control_plane: 'istio',
      istio_version: `${ISTIO_MODULE.version} (${ISTIO_MODULE.commit})`,
    }),
    close,
    destroy: (err) => {
      run.draining.abort();
      return (run.closing ??= cluster.destroy(err).finally(() => teardown(run, err)));
    },
  };
}
