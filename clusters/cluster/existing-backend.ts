import type { ClusterBackend, WorkloadRef } from '../backend.ts';
import { badInput, nameComponent } from '../../lib/index.ts';
import { kindAddresses } from '../kind/kind-addresses.ts';
import { need, ours } from '../kind/kind-workloads.ts';
import { startClientPod } from '../kind/load/client-pod.ts';
import { createFortioPodCommand } from '../kind/load/generator-command.ts';
import { applyAll } from '../kind/ops/apply-all.ts';
import { deleteAllPods, deletePod } from '../kind/ops/delete-pod.ts';
import { deleteWorkload } from '../kind/ops/delete-workload.ts';
import { rolloutRestart, scale, waitForRollout } from '../kind/ops/rollout.ts';
import { waitWorkloadReady } from '../kind/ops/wait-for-ready.ts';
import { createStepRunner } from '../steps/step-runner.ts';
import type { StepRunner } from '../steps/step-runner.ts';
import { GATEWAY_SERVICE_PORT } from '../manifests/index.ts';
import type { LoadPodPlacement } from '../manifests/index.ts';
import { closeExisting } from './existing-down.ts';
import { normalizeExistingOptions, restartsZtunnel } from './existing-options.ts';
import type { ExistingBackendOptions, ExistingSettings } from './existing-options.ts';
import { createExistingRun } from './existing-run.ts';
import { checkExisting, connectExisting, createRunNamespace, kubeConfigOf } from './existing-up.ts';
import type { ExistingRun } from './existing-up.ts';
import { adaptTopology, mapNamespace, ownerLabels } from './run-objects.ts';
import { awaitServingInCluster } from './serving-probe.ts';

nameComponent(import.meta.url, 'cluster backend');

/**
 * What a consented ztunnel restart leaves on the user's cluster, said before the run: `kubectl
 * rollout restart`'s annotation stays on the DaemonSet's pod template, so a GitOps controller that
 * reverts the template restarts ztunnel once more.
 */
const ZTUNNEL_RESTART_LEAVES = (istioNamespace: string): string =>
  `this run restarts ${istioNamespace}/ztunnel (--allow-ztunnel-restart) as \`kubectl rollout restart\` does: the kubectl.kubernetes.io/restartedAt annotation stays on its pod template after the run; a GitOps controller (Argo CD, Flux) that reverts it restarts ztunnel once more`;

/** What the backend's methods share: the run, its progress line, its step runner, where its pods go. */
interface ExistingParts {
  readonly x: ExistingRun;
  readonly say: (text: string) => void;
  readonly runner: StepRunner;
  readonly placement: LoadPodPlacement;
}

/**
 * An existing cluster where Istio ambient already runs (issue 45): the harness creates a namespace
 * of its own with httpbin and a route from the cluster's gateway, runs fortio as a pod there, watches
 * pods and EndpointSlices and follows the logs of its namespace's and Istio's pods as on kind (the
 * same machinery: clusters/kind's run, ops and log followers, scoped to those namespaces), and deletes
 * its namespace at the end. It installs nothing else and changes nothing of the user's, but for E1's
 * ztunnel restart, which needs --allow-ztunnel-restart.
 */
export function createExistingBackend(options: ExistingBackendOptions): ClusterBackend {
  const settings = normalizeExistingOptions(options);
  const namespaces = { run: settings.runNamespace, istio: settings.istioNamespace };
  const parts = createExistingParts(createExistingRun(settings));
  const { x, placement } = parts;
  const { run } = x;
  return {
    kind: 'cluster',
    clock: settings.clock,
    up: (signal) => bringUpExisting(parts, signal),
    apply: (objects) =>
      applyAll(
        run,
        adaptTopology(objects, { namespace: namespaces.run, imageRegistry: settings.imageRegistry }),
      ),
    waitForReady: (wait) => waitForExistingReady(parts, wait),
    rolloutRestart: async (ref) => rolloutRestart(run, mapRef(settings, ref)),
    scale: async (ref, replicas) => scale(run, mapRef(settings, ref), replicas),
    deletePod: (namespace, podName) => deletePod(run, mapNamespace(namespace, namespaces), podName),
    deleteAllPods: (ref) => deleteAllPods(run, mapRef(settings, ref)),
    // Only what the write guard lets through: istio-cni's DaemonSet on a cluster the harness made.
    deleteWorkload: (ref, wait) => deleteWorkload(run, mapRef(settings, ref), wait),
    waitForRollout: async (ref, wait) => waitForRollout(run, mapRef(settings, ref), wait),
    onEvent: (listener) => run.events.on(listener),
    events: () => run.events.all(),
    onFailure(listener) {
      run.failureListeners.add(listener);
      return () => run.failureListeners.delete(listener);
    },
    addresses: () => existingAddresses(x),
    logs: (pod) =>
      run.podLogs.lines(pod) ?? [
        `(cluster: no logs saved for ${pod} yet; they are saved at close into ${settings.logDir})`,
      ],
    preflight: async () => {
      await checkExisting(x);
    },
    describe: () => ({ backend: 'cluster', ...run.facts }),
    generatorCommand: createFortioPodCommand(run, {
      kubeconfig: settings.kubeconfig ?? '',
      ...(settings.context ? { context: settings.context } : {}),
      dockerEnv: {},
      ingress: '',
      placement,
      gateway: settings.gateway,
      headers: [`Host: ${settings.routeHost}`],
    }),
    // E3's long-lived client, in the run's namespace (the pods' addresses are reached from inside).
    startClientPod: (pod) => startClientPod(run, { ...pod, placement }),
    // run.closing: the watches' aborts at close are no failure of the run (failRun).
    close: () => (run.closing ??= closeExisting(x, { saveLogs: true })),
    destroy: () => {
      run.draining.abort();
      return (run.closing ??= closeExisting(x, { saveLogs: false }));
    },
  };
}

function createExistingParts(x: ExistingRun): ExistingParts {
  const { run, settings } = x;
  const say = (text: string): void => settings.onProgress?.(`cluster: ${text}`);
  const runner = createStepRunner({
    logDir: settings.stepLogDir,
    write: say,
    signal: run.cancelTools.signal,
    ...(settings.onStep ? { onTiming: settings.onStep } : {}),
  });
  const placement: LoadPodPlacement = {
    namespace: settings.runNamespace,
    labels: ownerLabels(settings.runNamespace),
    ...(settings.imageRegistry ? { imageRegistry: settings.imageRegistry } : {}),
    imagePullPolicy: settings.imageRegistry ? 'IfNotPresent' : 'Never',
    // The cluster's nodes are not this machine's: fortio's files come back through the API server.
    filesVia: 'api',
  };
  return { x, say, runner, placement };
}

/** up(): the preflight's checks, the API and the watches, the run's namespace (existing-up.ts). */
async function bringUpExisting(parts: ExistingParts, signal: AbortSignal | undefined): Promise<void> {
  const { x, runner, say } = parts;
  signal?.throwIfAborted();
  await runner.step('check', () => checkExisting(x));
  if (restartsZtunnel(x.settings)) say(`${ZTUNNEL_RESTART_LEAVES(x.settings.istioNamespace)}\n`);
  await runner.step('connect', () => connectExisting(x));
  await runner.step('namespace', () => createRunNamespace(x));
}

/** waitForReady(): the workloads Ready, then the route answering through the gateway from inside. */
async function waitForExistingReady(
  parts: ExistingParts,
  wait: Parameters<ClusterBackend['waitForReady']>[0],
): Promise<void> {
  const { x, say } = parts;
  const { run, settings } = x;
  const deadlineMs = settings.clock.now() + wait.timeoutMs;
  await waitWorkloadReady(run, wait);
  await awaitServingInCluster({
    kc: x.kc ?? kubeConfigOf(settings),
    api: need(run).api,
    clock: settings.clock,
    placement: parts.placement,
    url: `http://${gatewayAddress(x)}/get`,
    host: settings.routeHost,
    deadlineMs,
    signal: wait.signal,
    say: (line) => {
      say(`${line}\n`);
    },
  });
  run.isReadyOnce = true;
  run.restarts.markReady();
}

/** A workload ref of the scenario's namespaces mapped to the cluster's; Istio's ztunnel only with consent. */
function mapRef(settings: ExistingSettings, ref: WorkloadRef): WorkloadRef {
  const istio = settings.istioNamespace;
  const mapped = { ...ref, namespace: mapNamespace(ref.namespace, { run: settings.runNamespace, istio }) };
  if (mapped.kind === 'DaemonSet' && mapped.namespace === istio && !settings.allowZtunnelRestart)
    throw badInput(
      '--allow-ztunnel-restart',
      "given, to restart the cluster's ztunnel DaemonSet",
      'not given',
    );
  return mapped;
}

function gatewayAddress(x: ExistingRun): string {
  return `${x.facts?.gateway?.clusterIp ?? ''}:${String(GATEWAY_SERVICE_PORT)}`;
}

function existingAddresses(x: ExistingRun): ReturnType<ClusterBackend['addresses']> {
  const { run } = x;
  return kindAddresses({
    watch: need(run).watch,
    ours: (list) => ours(run, list),
    ingress: x.facts?.gateway ? gatewayAddress(x) : undefined,
    // Found where the nodes' cgroups are visible from here (a kind cluster of ours); else none.
    pidsOf: (uid) => run.podPids.of(uid),
  });
}
