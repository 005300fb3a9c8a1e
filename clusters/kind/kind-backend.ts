import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { KubernetesObject, V1DaemonSet, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { createSystemClock, ErrorCode, HarnessError, isHarnessError, waitAtMost } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type {
  BackendDescription,
  ClusterAddresses,
  ClusterBackend,
  RolloutResult,
  WorkloadRef,
} from '../backend.ts';
import { createEventLog, workloadKey } from '../events.ts';
import type { LifecycleEventKind } from '../events.ts';
import { waitForEvent } from '../wait-for-event.ts';
import type { ClusterWatch, WatchUpdate } from './cluster-watch.ts';
import { awaitServing } from './await-serving.ts';
import { checkCgroupVersion } from './docker-info.ts';
import { checkIngressPortFree } from './ingress-port.ts';
import { kindAddresses } from './kind-addresses.ts';
import { POD_LOGS_DEADLINE_MS, saveFailureEvidence } from './kind-evidence.ts';
import { KIND_IMAGES } from './kind-images.ts';
import { refuseExistingCluster } from './kind-preflight.ts';
import { createKindTools } from './kind-tools.ts';
import type { KindTools } from './kind-tools.ts';
import type { KubeApi, PodLogRef } from './kube-api.ts';
import { validateAgainstModels } from './model-check.ts';
import { controlPlaneStep } from './up/control-plane.ts';
import { createClusterStep } from './up/create-cluster.ts';
import { loadImagesStep } from './up/load-images.ts';
import { KIND_NETWORK, provisionKind } from './provision/kind-provisioner.ts';
import type { KindProvisioned, NodeImageChoice } from './provision/kind-provisioner.ts';
import { createStepRunner } from './provision/provision-step.ts';
import type { StepRunner, StepTiming } from './provision/provision-step.ts';
import { endpointChanges, podChanges } from './pod-events.ts';
import { ownerOf, toPodInfo } from './pod-info.ts';
import { createPodLogStore } from './pod-logs.ts';
import { createRestartPolicy } from './restart-policy.ts';
import { isRolledOut } from './rollout-predicate.ts';

/** Namespaces whose pods and slices become lifecycle events (kube-system stays out of the timeline). */
const WATCHED_NAMESPACES = new Set(['default', 'istio-system']);
const GATEWAY = { kind: 'Deployment', namespace: 'istio-system', name: 'istio-ingressgateway' } as const;

/** The grace period close() gives our pods (`kubectl delete --grace-period=2`), as the local backend. */
export const CLOSE_GRACE_S = 2;

/** The host port kind maps the gateway's nodePort to unless told another. */
export const DEFAULT_INGRESS_HOST_PORT = 18080;

export interface KindBackendOptions {
  clock?: Clock;
  /** kind cluster name (default ztunnel-harness). */
  name?: string;
  workers?: number;
  /** 127.0.0.1:<port> reaches the gateway's nodePort (default DEFAULT_INGRESS_HOST_PORT). */
  ingressHostPort?: number;
  /** Leave the cluster running on close (for a second look with kubectl). */
  keepCluster?: boolean;
  /**
   * Where kind writes the cluster's kubeconfig (`kind create cluster --kubeconfig`), so the user's
   * ~/.kube/config and current context stay untouched. Default: `<tmpdir>/<name>.kubeconfig`.
   */
  kubeconfigPath?: string;
  /** Told once the cluster exists: how to reach it with kubectl. */
  onKubeconfig?: (path: string) => void;
  /** The repository root: Dockerfile and build context. */
  projectRoot: string;
  /**
   * Injected in tests; by default kind and docker from PATH, their long steps (docker build, kind
   * create, kind load) cancelled when up()'s signal aborts (SIGINT or SIGTERM to the harness).
   */
  tools?: KindTools;
  /** The default tools' environment (tests put fake kind and docker first on PATH). */
  toolsEnv?: Record<string, string>;
  /**
   * Where pod logs are saved, named as the local backend names them (`<ns>_<pod>_<container>.log`,
   * `.previous.log` for a container's instance before a restart): the run folder's pods/ in an
   * experiment. Default `<tmpdir>/<name>-logs/pods`.
   */
  logDir?: string;
  /** Where a failed run's `kind export logs` goes (default: kind-logs beside logDir). */
  kindLogsDir?: string;
  /** Told where a failed run's logs were saved before the cluster went, and what could not be saved. */
  onLogs?: (message: string) => void;
  /** kind's --wait for the control plane, in seconds. */
  waitS?: number;
  /** How long istiod may take to roll out after the cluster is up (default 180 s). */
  controlPlaneTimeoutMs?: number;
  /** How long close() waits for our pods to be gone before deleting the cluster (default 20 s). */
  closeWaitMs?: number;
  /** `--node-image`: auto (ours from the registries unless the official one runs here) or a reference. */
  nodeImage?: NodeImageChoice;
  /**
   * engine -> kind -> images, each a step (default provisionKind: the Docker engine that answers or
   * ours started, kind pinned, the node image and our images built from the package registries, or
   * found built). Tests inject a fake that builds through the fake docker.
   */
  provision?: (runner: StepRunner) => Promise<KindProvisioned>;
  /** Where each step's log goes (default: steps/ beside logDir). */
  stepLogDir?: string;
  /** Told each step's time as it ends (the run folder's steps.csv). */
  onStep?: (timing: StepTiming) => void;
  /** Each step's start and end, with its log ("kind: images: done in 12.3 s"). */
  onProgress?: (text: string) => void;
}

/**
 * A real Kubernetes cluster in Docker: kind creates it, our images are built and loaded into it,
 * manifests go in by server-side apply, restarts are kubectl's patch, and every lifecycle event is
 * what the watches saw, stamped on the run's clock when it arrived (the server's own timestamps in
 * the detail). There is no timing model here: the latencies are measured.
 */
/**
 * ZTUNNEL_HARNESS_KIND_PROVISION=none: provision nothing: the engine, kind (from PATH), kind's default
 * node image, our images (each `docker build --target <stage> --tag <image>` as the docker on PATH
 * takes it) and the ingress port are the caller's. The commands' tests run the harness as a process
 * against fake kind and docker this way, with an HTTP server on the ingress port standing in for
 * docker-proxy.
 */
const PROVISION_NONE = process.env['ZTUNNEL_HARNESS_KIND_PROVISION'] === 'none';

const provisionNone = async (runner: StepRunner): Promise<KindProvisioned> => {
  await runner.step('images', async (step) => {
    for (const { image, target } of KIND_IMAGES)
      await step.run('docker', ['build', '--target', target, '--tag', image]);
  });
  return {
    engineOwner: 'user',
    release: () => Promise.resolve(),
    kindPath: 'kind',
    env: {},
    nodeImage: '',
    nodeImageSource: 'given',
    kubernetesVersion: '',
    ownCni: false,
  };
};

/** `kindest/node:v1.37.0@sha256:...` -> v1.37.0 ('' when the reference has no version tag). */
const kubernetesVersionOf = (ref: string): string => /:(v\d+\.\d+\.\d+)/.exec(ref)?.[1] ?? '';

/** The provisioning a real run does: provisionKind with our images (kind-images.ts). */
const defaultProvision =
  (nodeImage: NodeImageChoice) =>
  (runner: StepRunner): Promise<KindProvisioned> =>
    provisionKind(runner, { nodeImage, images: KIND_IMAGES });

export function createKindBackend(options: KindBackendOptions): ClusterBackend {
  const clock = options.clock ?? createSystemClock();
  const name = options.name ?? 'ztunnel-harness';
  const workers = options.workers ?? 2;
  const ingressHostPort = options.ingressHostPort ?? DEFAULT_INGRESS_HOST_PORT;
  /** Aborted with up()'s signal: kills the default tools' docker build, kind create and kind load. */
  const cancelTools = new AbortController();
  const makeTools = (kindPath?: string, env: Record<string, string> = {}): KindTools =>
    options.tools ??
    createKindTools({
      buildContext: options.projectRoot,
      signal: cancelTools.signal,
      env: { ...options.toolsEnv, ...env },
      ...(kindPath ? { kind: kindPath } : {}),
    });
  /** Before provisioning: kind and docker from PATH; after it, the pinned kind and the engine's env. */
  let tools = makeTools();
  let provisioned: KindProvisioned | undefined;
  const kubeconfigPath = options.kubeconfigPath ?? join(tmpdir(), `${name}.kubeconfig`);
  const logDir = options.logDir ?? join(tmpdir(), `${name}-logs`, 'pods');
  const kindLogsDir = options.kindLogsDir ?? join(dirname(logDir), 'kind-logs');
  const stepLogDir = options.stepLogDir ?? join(dirname(logDir), 'steps');
  const say = (text: string): void => {
    options.onProgress?.(`kind: ${text}`);
  };
  const podLogs = createPodLogStore();
  const events = createEventLog();
  const failureListeners = new Set<(err: HarnessError) => void>();
  const changeListeners = new Set<() => void>();
  // Every key from the start: runs.csv's columns are checked before the cluster exists.
  const facts: BackendDescription = {
    nodes: workers,
    kind_cluster: name,
    timing_model: 'measured',
    ztunnel_mode: 'node-address',
    ingress_path: 'docker-proxy+nodeport',
    kind_version: '',
    docker_server_version: '',
    kubernetes_version: '',
  };
  let api: KubeApi | undefined;
  let watch: ClusterWatch | undefined;
  let created = false;
  /** `kind create cluster` succeeded: there are nodes whose logs `kind export logs` can save. */
  let hasNodes = false;
  let closing: Promise<void> | undefined;
  /** up()'s signal: its reason tells an interruption (no evidence to keep) from a failure. */
  let upSignal: AbortSignal | undefined;
  /** Per workload, the generation a change we made must be observed at before its rollout counts. */
  const awaitedGeneration = new Map<string, number>();
  const refKey = (ref: WorkloadRef): string => `${ref.kind}/${ref.namespace}/${ref.name}`;

  const emit = (kind: LifecycleEventKind, object: string, detail?: string, node?: string): void => {
    events.emit({
      atMs: clock.now(),
      kind,
      source: kind.startsWith('endpoint') ? 'controller' : 'api-server',
      object,
      ...(node ? { node } : {}),
      ...(detail ? { detail } : {}),
    });
  };
  const fail = (err: HarnessError): void => {
    // Stopping the informers aborts their watches, which they report as errors: not a failure.
    if (closing) return;
    for (const listener of failureListeners) listener(err);
  };
  const restarts = createRestartPolicy({
    emit: (pod, detail, node) => {
      emit('container-exited', pod, detail, node);
    },
    fail,
    logDir,
  });
  const onUpdate = (update: WatchUpdate): void => {
    const object = update.after ?? update.before;
    const namespace = object?.metadata?.namespace ?? '';
    if (WATCHED_NAMESPACES.has(namespace)) {
      const key = `${namespace}/${object?.metadata?.name ?? ''}`;
      if (update.kind === 'pods') {
        for (const c of podChanges(update.before, update.after))
          emit(c.kind, key, c.detail, update.after?.spec?.nodeName);
        restarts.onPodUpdate(key, update.before, update.after);
      }
      if (update.kind === 'endpointSlices')
        for (const { pod, change } of endpointChanges(update.before, update.after))
          emit(change.kind, pod, change.detail);
    }
    for (const listener of changeListeners) listener();
  };
  const changes = {
    on(listener: () => void) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
  };
  const need = (): { api: KubeApi; watch: ClusterWatch } => {
    if (!api || !watch)
      throw new HarnessError(ErrorCode.BadInput, 'the kind cluster is not up; call up() first');
    return { api, watch };
  };
  const workloadOf = (ref: WorkloadRef): V1Deployment | V1DaemonSet | undefined =>
    need()
      .watch.list(ref.kind === 'Deployment' ? 'deployments' : 'daemonSets')
      .find((o) => o.metadata?.namespace === ref.namespace && o.metadata.name === ref.name);
  const requireWorkload = (ref: WorkloadRef): void => {
    if (!workloadOf(ref))
      throw new HarnessError(
        ErrorCode.BadInput,
        `${ref.kind} ${ref.namespace}/${ref.name} does not exist in kind cluster ${name}; apply it first`,
      );
  };
  const podsOf = (ref: WorkloadRef) =>
    need()
      .watch.list('pods')
      .filter(
        (p) =>
          p.metadata?.namespace === ref.namespace && ownerOf(p) === `${ref.kind.toLowerCase()}/${ref.name}`,
      );
  const ours = <T extends { metadata?: { namespace?: string } }>(list: T[]): T[] =>
    list.filter((o) => WATCHED_NAMESPACES.has(o.metadata?.namespace ?? ''));

  /** Every Deployment and DaemonSet applied: waitForReady waits until the watch has seen each. */
  const applied: WorkloadRef[] = [];
  async function applyAll(objects: readonly KubernetesObject[]): Promise<void> {
    validateAgainstModels(objects);
    const { api: kube } = need();
    for (const object of objects) {
      await kube.apply(object);
      if (object.kind === 'Deployment' || object.kind === 'DaemonSet')
        applied.push({
          kind: object.kind,
          namespace: object.metadata?.namespace ?? 'default',
          name: object.metadata?.name ?? '',
        });
    }
  }
  const waitRolledOut = (ref: WorkloadRef, timeoutMs: number, signal?: AbortSignal): Promise<unknown> =>
    waitForEvent({
      events: changes,
      clock,
      timeoutMs,
      what: `${ref.kind} ${ref.namespace}/${ref.name} in kind cluster ${name} to be rolled out`,
      ...(signal ? { signal } : {}),
      check: () => {
        const w = workloadOf(ref);
        return w && isRolledOut(w, ref.kind) ? true : undefined;
      },
    });

  /**
   * Whether the watches have caught up with a workload: its object is there (an applied one the watch
   * has not delivered would pass the list without it, and the gateway would have no address), at
   * the generation our last change made (a scale), and its pods' informer has as many Ready pods as
   * its status says (the pods and the workload come on separate watches, in either order).
   */
  const isCaughtUp = (ref: WorkloadRef): boolean => {
    const w = workloadOf(ref);
    if (!w || (w.metadata?.generation ?? 0) < (awaitedGeneration.get(refKey(ref)) ?? 0)) return false;
    const ready = podsOf(ref).filter((p) => toPodInfo(p).isReady && !p.metadata?.deletionTimestamp).length;
    const status: { readyReplicas?: number; numberReady?: number } = w.status ?? {};
    const claimed = ref.kind === 'Deployment' ? status.readyReplicas : status.numberReady;
    return ready >= (claimed ?? 0);
  };

  /** Ctrl-C or SIGTERM (an Aborted error, or up()'s signal aborted as one): no time for evidence. */
  const isInterruption = (err: unknown): boolean =>
    isHarnessError(err, ErrorCode.Aborted) || isHarnessError(upSignal?.reason, ErrorCode.Aborted);
  const keepEvidence = async (): Promise<void> => {
    const kube = api;
    const problems = await saveFailureEvidence({
      clock,
      tools,
      name,
      kindLogsDir,
      logDir,
      pods: watch ? ours(watch.list('pods')) : undefined,
      readLog: kube ? (log) => kube.podLog(log) : undefined,
      store: podLogs,
    });
    const unsaved = problems.length > 0 ? `; not saved: ${problems.join('; ')}` : '';
    options.onLogs?.(
      `kind: before the cluster was deleted, its logs were saved in ${kindLogsDir} (kind export logs), its restarted or non-Ready pods' logs in ${logDir}${unsaved}\n`,
    );
  };
  /** `failure`: why the cluster goes early (a failed step, destroy(err)); its evidence is kept first. */
  const teardown = async (failure?: unknown): Promise<void> => {
    if (failure !== undefined && hasNodes && !isInterruption(failure)) await keepEvidence();
    await watch?.stop();
    if (created && !options.keepCluster) {
      await tools.deleteCluster(name, kubeconfigPath);
      // Our network goes with our cluster (kind leaves the networks it makes).
      if (provisioned?.env['KIND_EXPERIMENTAL_DOCKER_NETWORK'] === KIND_NETWORK)
        await tools.removeNetwork(KIND_NETWORK);
    }
    created = false;
    hasNodes = false;
    // A kept cluster keeps its engine; otherwise a daemon this run started is stopped.
    if (!options.keepCluster) await provisioned?.release();
  };
  /**
   * Docker and kind answer, the engine runs cgroup v2, and no cluster of this name exists (ToolMissing
   * or BadInput, exit 2); records the versions and the image store. Returns the engine's platform.
   */
  const checkMachine = async (kubernetesVersion: string): Promise<string> => {
    const versions = await tools.checkInstalled();
    const docker = await tools.dockerInfo();
    checkCgroupVersion(docker, kubernetesVersion);
    facts['kind_version'] = versions.kindVersion;
    facts['docker_server_version'] = `${versions.dockerServerVersion} (image store: ${docker.imageStore})`;
    await refuseExistingCluster(tools, name);
    return docker.platform;
  };

  /**
   * What can be refused before anything starts: the ingress port taken; where an engine and kind
   * answer already (ours may not have started yet: then up() asks again after provisioning), a
   * leftover cluster of this name, or cgroup v1 under a given node image whose kubelet refuses it.
   */
  const checkBeforeStarting = async (): Promise<void> => {
    if (!PROVISION_NONE) await checkIngressPortFree(ingressHostPort);
    const answers = await tools.checkInstalled().then(
      () => true,
      (err: unknown) => {
        // Ours starts in up() when none answers; with ZTUNNEL_HARNESS_KIND_PROVISION=none it must answer.
        if (isHarnessError(err, ErrorCode.ToolMissing) && !PROVISION_NONE) return false;
        throw err;
      },
    );
    if (!answers) return;
    const choice = options.nodeImage ?? 'auto';
    if (choice !== 'auto') checkCgroupVersion(await tools.dockerInfo(), kubernetesVersionOf(choice));
    await refuseExistingCluster(tools, name);
  };

  /** Aborts a drain in progress: destroy() during close() deletes the cluster at once. */
  const draining = new AbortController();
  /**
   * close(): every container's log of ours saved into logDir (logs() returns them); then as
   * `kubectl delete` would, before the cluster goes: every workload we applied deleted (its pods by
   * garbage collection), every pod of ours deleted with a grace period of CLOSE_GRACE_S (SIGTERM,
   * then SIGKILL from the kubelet), and up to closeWaitMs for them to be gone; then the cluster is
   * deleted. A kept cluster (--keep-cluster) is left as it is, its logs saved all the same.
   */
  const drain = async (): Promise<void> => {
    const kube = api;
    const w = watch;
    if (!created || !kube || !w) return;
    const pods = () => ours(w.list('pods'));
    await savePodLogs(pods(), (log) => kube.podLog(log));
    if (options.keepCluster) return;
    await Promise.allSettled([...applied].reverse().map((ref) => kube.deleteWorkload(ref)));
    await Promise.allSettled(
      pods().map((p) => kube.deletePod(p.metadata?.namespace ?? '', p.metadata?.name ?? '', CLOSE_GRACE_S)),
    );
    await waitForEvent({
      events: changes,
      clock,
      timeoutMs: options.closeWaitMs ?? 20_000,
      what: `the pods of kind cluster ${name} to be gone`,
      signal: draining.signal,
      check: () => (pods().length === 0 ? true : undefined),
    }).catch(() => undefined); // bounded: the cluster is deleted either way
  };
  /** Every container's log into logDir before the pods go (logs() reads them), cut short by destroy(). */
  const savePodLogs = async (pods: V1Pod[], readLog: (log: PodLogRef) => Promise<string>): Promise<void> => {
    const cut = new Promise<void>((resolve) => {
      draining.signal.addEventListener('abort', () => {
        resolve();
      });
    });
    // A log that cannot be read (a container that never started), or a folder that cannot be
    // written, is told and does not hold the teardown up.
    const saving = podLogs.save({ pods, dir: logDir, readLog }).then(
      (saved) => {
        if (saved.failures.length > 0)
          options.onLogs?.(`kind: pod logs saved in ${logDir}; not read: ${saved.failures.join('; ')}\n`);
      },
      (err: unknown) => {
        options.onLogs?.(`kind: pod logs not saved in ${logDir}: ${(err as Error).message}\n`);
      },
    );
    const saved = await waitAtMost(clock, Promise.race([saving, cut]), POD_LOGS_DEADLINE_MS);
    if (!saved.done)
      options.onLogs?.(`kind: pod logs not all read within ${String(POD_LOGS_DEADLINE_MS / 1000)} s\n`);
  };
  const close = (): Promise<void> => (closing ??= drain().then(() => teardown()));
  // destroy(err): the cluster deleted at once (an aborted or crashed run), a drain in progress cut
  // short; a crashed run's evidence saved first.
  const destroy = (err?: Error): Promise<void> => {
    draining.abort();
    return (closing ??= teardown(err));
  };

  /**
   * After provisioning, the rest of up() as kind's create runs its actions: each a named step (a file
   * in up/), timed, in this order.
   */
  const createAndStart = async (
    platform: string,
    signal: AbortSignal | undefined,
    runner: StepRunner,
  ): Promise<void> => {
    const steps: { name: string; run: () => Promise<void> }[] = [
      {
        name: 'cluster',
        run: async () => {
          await createClusterStep({
            tools,
            name,
            workers,
            ingressHostPort,
            ...(provisioned?.nodeImage ? { nodeImage: provisioned.nodeImage } : {}),
            waitS: options.waitS ?? 300,
            kubeconfigPath,
          });
          hasNodes = true;
          options.onKubeconfig?.(kubeconfigPath);
        },
      },
      { name: 'load-images', run: () => loadImagesStep({ tools, name, platform }) },
      {
        name: 'control-plane',
        run: () =>
          controlPlaneStep({
            tools,
            name,
            onUpdate,
            fail,
            apply: (_api, objects) => applyAll(objects),
            waitRolledOut: (ref) =>
              waitRolledOut(ref, options.controlPlaneTimeoutMs ?? 180_000, signal).catch((err: unknown) => {
                throw restarts.explain(err);
              }),
            onConnected: (connected, watching, serverVersion) => {
              api = connected;
              watch = watching;
              // Which node image ran, in the row (a column of its own needs a runs.csv schema change).
              const image = provisioned?.nodeImage
                ? ` (node image ${provisioned.nodeImage}, ${provisioned.nodeImageSource})`
                : '';
              facts['kubernetes_version'] = `${serverVersion}${image}`;
            },
          }),
      },
    ];
    for (const step of steps) {
      signal?.throwIfAborted();
      await runner.step(step.name, step.run);
    }
  };

  return {
    kind: 'kind',
    clock,
    async up(signal) {
      signal?.throwIfAborted();
      upSignal = signal;
      await checkBeforeStarting();
      const cancel = (): void => {
        cancelTools.abort(signal?.reason);
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const runner = createStepRunner({
        logDir: stepLogDir,
        write: say,
        signal: cancelTools.signal,
        ...(options.onStep ? { onTiming: options.onStep } : {}),
      });
      try {
        // engine -> kind -> images (provisionKind), then cluster -> images loaded -> control plane.
        const provision =
          options.provision ??
          (PROVISION_NONE ? provisionNone : defaultProvision(options.nodeImage ?? 'auto'));
        provisioned = await provision(runner);
        tools = makeTools(provisioned.kindPath, provisioned.env);
        const platform = await checkMachine(provisioned.kubernetesVersion).catch(async (err: unknown) => {
          await provisioned?.release();
          throw err;
        });
        signal?.throwIfAborted();
        // Ours from before create: a cluster kind leaves half-made (Ctrl-C or SIGTERM during
        // `kind create`, which installs no signal handler and so never cleans up) is deleted too,
        // and `kind delete cluster` of one that is not there succeeds.
        created = true;
        try {
          await createAndStart(platform, signal, runner);
        } catch (err) {
          await teardown(err);
          throw err;
        }
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
    },
    apply: applyAll,
    async waitForReady({ timeoutMs, signal }) {
      const deadline = clock.now() + timeoutMs;
      await waitForEvent({
        events: changes,
        clock,
        timeoutMs,
        what: `every Deployment and DaemonSet in kind cluster ${name} to be rolled out and Ready`,
        ...(signal ? { signal } : {}),
        check: () => {
          const w = need().watch;
          const pods = ours(w.list('pods')).map(toPodInfo);
          return applied.every(isCaughtUp) &&
            ours(w.list('deployments')).every((d) => isRolledOut(d, 'Deployment')) &&
            ours(w.list('daemonSets')).every((d) => isRolledOut(d, 'DaemonSet')) &&
            pods.every((p) => p.isReady && !p.isDeleting)
            ? true
            : undefined;
        },
      }).catch((err: unknown) => {
        throw restarts.explain(err);
      });
      // Ready pods are not yet pushed HEALTHY to the gateway: wait until requests get through.
      if (workloadOf(GATEWAY)) {
        const url = `http://127.0.0.1:${String(ingressHostPort)}/get`;
        await awaitServing({ url, clock, deadlineMs: deadline, ...(signal ? { signal } : {}) });
      }
      restarts.markReady();
    },
    async rolloutRestart(ref) {
      requireWorkload(ref);
      emit('rollout-started', workloadKey(ref), 'rollout restart');
      const { generation } = await need().api.rolloutRestart(ref, new Date());
      awaitedGeneration.set(refKey(ref), generation);
    },
    async scale(ref, replicas) {
      requireWorkload(ref);
      emit('rollout-started', workloadKey(ref), `scale to ${String(replicas)}`);
      const current = workloadOf(ref) as V1Deployment;
      const generation = current.metadata?.generation ?? 0;
      await need().api.scale(ref, replicas);
      // The API server bumps the generation only when the spec changes.
      awaitedGeneration.set(refKey(ref), current.spec?.replicas === replicas ? generation : generation + 1);
    },
    async deletePod(namespace, podName) {
      await need().api.deletePod(namespace, podName);
      // Resolved once the watch shows it deleting (or gone), so what is read next reflects it.
      const pod = () =>
        need()
          .watch.list('pods')
          .find((p) => p.metadata?.namespace === namespace && p.metadata.name === podName);
      await waitForEvent({
        events: changes,
        clock,
        timeoutMs: 10_000,
        what: `pod ${namespace}/${podName} in kind cluster ${name} to be seen deleting`,
        check: () => (pod()?.metadata?.deletionTimestamp || !pod() ? true : undefined),
      });
    },
    async waitForRollout(ref, { timeoutMs, untilOldPodsGone, signal }) {
      requireWorkload(ref);
      const key = workloadKey(ref);
      const startedAtMs =
        events.all().findLast((e) => e.kind === 'rollout-started' && e.object === key)?.atMs ?? clock.now();
      const wait = (what: string, check: () => boolean) =>
        waitForEvent({
          events: changes,
          clock,
          timeoutMs,
          what: `${ref.kind} ${key} ${what}`,
          ...(signal ? { signal } : {}),
          check: () => (check() ? clock.now() : undefined),
        });
      // The patch's generation bump reaches the watch after the patch returns: wait for a status that
      // has seen it (observedGeneration) before trusting the predicate, as kubectl does.
      const statusCompleteAtMs = await wait('to roll out (kubectl rollout status)', () => {
        const w = workloadOf(ref);
        // The watch may still hold the version from before our patch: wait for the one after it.
        const seen = (w?.metadata?.generation ?? 0) >= (awaitedGeneration.get(refKey(ref)) ?? 0);
        return w !== undefined && seen && isRolledOut(w, ref.kind);
      });
      emit('rollout-status-complete', key);
      const result: RolloutResult = { startedAtMs, statusCompleteAtMs };
      if (!untilOldPodsGone) return result;
      const oldPodsGoneAtMs = await wait('old pods to be gone', () =>
        podsOf(ref).every((p) => !p.metadata?.deletionTimestamp),
      );
      emit('rollout-old-pods-gone', key);
      return { ...result, oldPodsGoneAtMs };
    },
    onEvent: (listener) => events.on(listener),
    events: () => events.all(),
    onFailure(listener) {
      failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },
    addresses(): ClusterAddresses {
      const gateway = workloadOf(GATEWAY);
      const isGatewayReady = gateway !== undefined && isRolledOut(gateway, 'Deployment');
      return kindAddresses({
        watch: need().watch,
        ours,
        ingress: isGatewayReady ? `127.0.0.1:${String(ingressHostPort)}` : undefined,
      });
    },
    // What was saved into logDir (every pod's at close, a failed run's troubled pods at destroy).
    logs: (pod) =>
      podLogs.lines(pod) ?? [
        `(kind: no logs saved for ${pod} yet; they are saved at close, or at a failure, into ${logDir}; kubectl logs -n ${pod.replace('/', ' ')})`,
      ],
    // Docker's engine and kind answer, cgroup v2, no leftover cluster of this name (exit 2 otherwise).
    // The ingress port free; where an engine and kind answer already, no leftover cluster of this
    // name and no given node image its cgroup version refuses (exit 2 before anything starts).
    preflight: () => checkBeforeStarting(),
    describe: () => ({ backend: 'kind', ...facts }),
    close,
    destroy,
  };
}
