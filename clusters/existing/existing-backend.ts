import type { ClusterBackend, WorkloadRef } from '../backend.ts';
import { badInput, nameComponent, PROJECT_ROOT } from '../../lib/index.ts';
import { createKindRun } from '../kind/kind-run.ts';
import { kindAddresses } from '../kind/kind-addresses.ts';
import { need, ours } from '../kind/kind-workloads.ts';
import { normalizeKindOptions } from '../kind/kind-options.ts';
import { startClientPod } from '../kind/load/client-pod.ts';
import { createFortioPodCommand } from '../kind/load/generator-command.ts';
import { INGRESS_PATHS } from '../kind/load/ingress-paths.ts';
import { applyAll } from '../kind/ops/apply-all.ts';
import { deletePod } from '../kind/ops/delete-pod.ts';
import { rolloutRestart, scale, waitForRollout } from '../kind/ops/rollout.ts';
import { waitWorkloadReady } from '../kind/ops/wait-for-ready.ts';
import { createStepRunner } from '../kind/provision/provision-step.ts';
import { GATEWAY_SERVICE_PORT } from '../manifests/index.ts';
import type { LoadPodPlacement } from '../manifests/index.ts';
import { closeExisting } from './existing-down.ts';
import { createLogScope } from './log-scope.ts';
import { normalizeExistingOptions, restartsZtunnel } from './existing-options.ts';
import type { ExistingBackendOptions } from './existing-options.ts';
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
  const ns = settings.runNamespace;
  const istio = settings.istioNamespace;
  const kindSettings = normalizeKindOptions({
    clock: settings.clock,
    name: settings.context ?? 'current-context',
    projectRoot: PROJECT_ROOT,
    logDir: settings.logDir,
    stepLogDir: settings.stepLogDir,
    kubeconfigPath: settings.kubeconfig ?? '',
    keepCluster: true,
    loadFrom: 'cluster',
    ...(settings.onLogs ? { onLogs: settings.onLogs } : {}),
    ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
  });
  let watchVersion = 0;
  const logs = createLogScope({
    runNamespace: ns,
    istioNamespace: istio,
    gatewayNamespace: settings.gateway.namespace,
    gatewaySelector: () => x.facts?.gateway?.selector,
    host: settings.routeHost,
    addresses: () => {
      const watch = run.watch;
      return {
        pods: watch?.list('pods') ?? [],
        nodeIps: (watch?.list('nodes') ?? []).flatMap((n) =>
          (n.status?.addresses ?? []).map((a) => a.address),
        ),
        serviceIps: (watch?.list('services') ?? []).flatMap((v) => v.spec?.clusterIPs ?? []),
      };
    },
    watchVersion: () => watchVersion,
    allIstioLogs: settings.allIstioLogs,
  });
  const run = createKindRun(kindSettings, {
    scope: {
      watched: new Set([ns, istio, settings.gateway.namespace]),
      owned: new Set([ns]),
      gateway: { kind: 'Deployment', ...settings.gateway },
      logs,
    },
    facts: {
      nodes: 0,
      timing_model: 'measured',
      ztunnel_mode: 'in-pod',
      ingress_path: INGRESS_PATHS.cluster,
      cluster_context: '',
      kubernetes_version: '',
      istio_version: '',
      ztunnel_image: '',
    },
  });
  run.changeListeners.add(() => (watchVersion += 1));
  const x: ExistingRun = { run, settings, kc: undefined, facts: undefined, created: false };
  const say = (text: string): void => settings.onProgress?.(`cluster: ${text}`);
  const runner = createStepRunner({
    logDir: settings.stepLogDir,
    write: say,
    signal: run.cancelTools.signal,
    ...(settings.onStep ? { onTiming: settings.onStep } : {}),
  });
  const placement: LoadPodPlacement = {
    namespace: ns,
    labels: ownerLabels(ns),
    ...(settings.imageRegistry ? { imageRegistry: settings.imageRegistry } : {}),
    imagePullPolicy: settings.imageRegistry ? 'IfNotPresent' : 'Never',
    // The cluster's nodes are not this machine's: fortio's files come back through the API server.
    filesVia: 'api',
  };
  const host = settings.routeHost;
  const mapRef = (ref: WorkloadRef): WorkloadRef => {
    const mapped = { ...ref, namespace: mapNamespace(ref.namespace, { run: ns, istio }) };
    if (mapped.kind === 'DaemonSet' && mapped.namespace === istio && !settings.allowZtunnelRestart)
      throw badInput(
        '--allow-ztunnel-restart',
        "given, to restart the cluster's ztunnel DaemonSet",
        'not given',
      );
    return mapped;
  };
  const gatewayAddress = (): string => `${x.facts?.gateway?.clusterIp ?? ''}:${String(GATEWAY_SERVICE_PORT)}`;
  return {
    kind: 'cluster',
    clock: settings.clock,
    async up(signal) {
      signal?.throwIfAborted();
      await runner.step('check', () => checkExisting(x));
      if (restartsZtunnel(settings)) say(`${ZTUNNEL_RESTART_LEAVES(istio)}\n`);
      await runner.step('connect', () => connectExisting(x));
      await runner.step('namespace', () => createRunNamespace(x));
    },
    apply: (objects) =>
      applyAll(run, adaptTopology(objects, { namespace: ns, imageRegistry: settings.imageRegistry })),
    async waitForReady(wait) {
      const deadlineMs = settings.clock.now() + wait.timeoutMs;
      await waitWorkloadReady(run, wait);
      await awaitServingInCluster({
        kc: x.kc ?? kubeConfigOf(settings),
        api: need(run).api,
        clock: settings.clock,
        placement,
        url: `http://${gatewayAddress()}/get`,
        host,
        deadlineMs,
        signal: wait.signal,
        say: (line) => {
          say(`${line}\n`);
        },
      });
      run.isReadyOnce = true;
      run.restarts.markReady();
    },
    rolloutRestart: async (ref) => rolloutRestart(run, mapRef(ref)),
    scale: async (ref, replicas) => scale(run, mapRef(ref), replicas),
    deletePod: (namespace, podName) => deletePod(run, mapNamespace(namespace, { run: ns, istio }), podName),
    waitForRollout: async (ref, wait) => waitForRollout(run, mapRef(ref), wait),
    onEvent: (listener) => run.events.on(listener),
    events: () => run.events.all(),
    onFailure(listener) {
      run.failureListeners.add(listener);
      return () => run.failureListeners.delete(listener);
    },
    addresses: () =>
      kindAddresses({
        watch: need(run).watch,
        ours: (list) => ours(run, list),
        ingress: x.facts?.gateway ? gatewayAddress() : undefined,
        // Found where the nodes' cgroups are visible from here (a kind cluster of ours); else none.
        pidsOf: (uid) => run.podPids.of(uid),
      }),
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
      headers: [`Host: ${host}`],
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
