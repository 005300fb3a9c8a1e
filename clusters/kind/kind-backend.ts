import type { BackendDescription } from '../backend-columns.ts';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject, V1DaemonSet, V1Deployment } from '@kubernetes/client-node';
import { createSystemClock, ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { ClusterAddresses, ClusterBackend, RolloutResult, WorkloadRef } from '../backend.ts';
import { createEventLog, workloadKey } from '../events.ts';
import type { LifecycleEventKind } from '../events.ts';
import { ENVOY_XDS_ADDRESS } from '../manifests/index.ts';
import { waitForEvent } from '../wait-for-event.ts';
import { createClusterWatch } from './cluster-watch.ts';
import type { ClusterWatch, WatchUpdate } from './cluster-watch.ts';
import { awaitServing } from './await-serving.ts';
import { buildKindConfig } from './kind-config.ts';
import { buildKindControlPlane, ISTIOD } from './kind-manifests.ts';
import { KIND_IMAGES } from './kind-images.ts';
import { createKindTools } from './kind-tools.ts';
import type { KindTools } from './kind-tools.ts';
import { createKubeApi } from './kube-api.ts';
import type { KubeApi } from './kube-api.ts';
import { validateAgainstModels } from './model-check.ts';
import { endpointChanges, podChanges } from './pod-events.ts';
import { ownerOf, toPodInfo } from './pod-info.ts';
import { isRolledOut } from './rollout-predicate.ts';

/** Namespaces whose pods and slices become lifecycle events (kube-system stays out of the timeline). */
const WATCHED_NAMESPACES = new Set(['default', 'istio-system']);
const GATEWAY = { kind: 'Deployment', namespace: 'istio-system', name: 'istio-ingressgateway' } as const;

/** The grace period close() gives our pods (`kubectl delete --grace-period=2`), as the local backend. */
export const CLOSE_GRACE_S = 2;

export interface KindBackendOptions {
  clock?: Clock;
  /** kind cluster name (default ztunnel-harness). */
  name?: string;
  workers?: number;
  /** 127.0.0.1:<port> reaches the gateway's nodePort (default 18080). */
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
  /** Injected in tests; by default kind and docker from PATH. */
  tools?: KindTools;
  /** kind's --wait for the control plane, in seconds. */
  waitS?: number;
  /** How long istiod may take to roll out after the cluster is up (default 180 s). */
  controlPlaneTimeoutMs?: number;
  /** How long close() waits for our pods to be gone before deleting the cluster (default 20 s). */
  closeWaitMs?: number;
}

/**
 * A real Kubernetes cluster in Docker: kind creates it, our images are built and loaded into it,
 * manifests go in by server-side apply, restarts are kubectl's patch, and every lifecycle event is
 * what the watches saw, stamped on the run's clock when it arrived (the server's own timestamps in
 * the detail). There is no timing model here: the latencies are measured.
 */
export function createKindBackend(options: KindBackendOptions): ClusterBackend {
  const clock = options.clock ?? createSystemClock();
  const name = options.name ?? 'ztunnel-harness';
  const workers = options.workers ?? 2;
  const ingressHostPort = options.ingressHostPort ?? 18080;
  const tools = options.tools ?? createKindTools({ buildContext: options.projectRoot });
  const kubeconfigPath = options.kubeconfigPath ?? join(tmpdir(), `${name}.kubeconfig`);
  const events = createEventLog();
  const failureListeners = new Set<(err: HarnessError) => void>();
  const changeListeners = new Set<() => void>();
  // Every key from the start: runs.csv's columns are checked before the cluster exists.
  const facts: BackendDescription = {
    nodes: workers,
    kind_cluster: name,
    timing_model: 'measured',
    ztunnel_mode: 'node-address',
    kind_version: '',
    docker_server_version: '',
    kubernetes_version: '',
  };
  let api: KubeApi | undefined;
  let watch: ClusterWatch | undefined;
  let created = false;
  let closing: Promise<void> | undefined;
  const restartCounts = new Map<string, number>();
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
  const onUpdate = (update: WatchUpdate): void => {
    const object = update.after ?? update.before;
    const namespace = object?.metadata?.namespace ?? '';
    if (WATCHED_NAMESPACES.has(namespace)) {
      const key = `${namespace}/${object?.metadata?.name ?? ''}`;
      if (update.kind === 'pods') {
        for (const c of podChanges(update.before, update.after))
          emit(c.kind, key, c.detail, update.after?.spec?.nodeName);
        const restarts = (update.after?.status?.containerStatuses ?? []).reduce(
          (n, s) => n + s.restartCount,
          0,
        );
        if (restarts > (restartCounts.get(key) ?? 0))
          fail(
            new HarnessError(
              ErrorCode.ComponentFailed,
              `${key} restarted a container (restartCount ${String(restarts)}); see kubectl logs -n ${namespace} ${object?.metadata?.name ?? ''} --previous`,
            ),
          );
        restartCounts.set(key, restarts);
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

  const teardown = async (): Promise<void> => {
    await watch?.stop();
    if (created && !options.keepCluster) await tools.deleteCluster(name, kubeconfigPath);
    created = false;
  };

  /** Aborts a drain in progress: destroy() during close() deletes the cluster at once. */
  const draining = new AbortController();
  /**
   * close(): as `kubectl delete` would, before the cluster goes: every workload we applied deleted
   * (its pods by garbage collection), every pod of ours deleted with a grace period of
   * CLOSE_GRACE_S (SIGTERM, then SIGKILL from the kubelet), and up to closeWaitMs for them to be
   * gone; then the cluster is deleted. A kept cluster (--keep-cluster) is left as it is.
   */
  const drain = async (): Promise<void> => {
    const kube = api;
    const w = watch;
    if (!created || options.keepCluster || !kube || !w) return;
    const pods = () => ours(w.list('pods'));
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
  const close = (): Promise<void> => (closing ??= drain().then(teardown));
  // destroy(): the cluster deleted at once (an aborted or crashed run), a drain in progress cut short.
  const destroy = (): Promise<void> => {
    draining.abort();
    return (closing ??= teardown());
  };

  return {
    kind: 'kind',
    clock,
    async up(signal) {
      const versions = await tools.checkInstalled();
      facts['kind_version'] = versions.kindVersion;
      facts['docker_server_version'] = versions.dockerServerVersion;
      for (const image of KIND_IMAGES) await tools.buildImage(image.image, image.target);
      signal?.throwIfAborted();
      await tools.createCluster(
        name,
        buildKindConfig({ workers, ingressHostPort }),
        options.waitS ?? 300,
        kubeconfigPath,
      );
      options.onKubeconfig?.(kubeconfigPath);
      created = true;
      try {
        signal?.throwIfAborted();
        await tools.loadImages(
          name,
          KIND_IMAGES.map((i) => i.image),
        );
        const kc = new KubeConfig();
        kc.loadFromString(await tools.kubeconfig(name));
        api = createKubeApi(kc);
        facts['kubernetes_version'] = await api.serverVersion();
        watch = createClusterWatch(kc);
        watch.onUpdate(onUpdate);
        watch.onError((err) => {
          fail(
            new HarnessError(
              ErrorCode.ComponentFailed,
              `watching kind cluster ${name} failed: ${err.message}`,
              { cause: err },
            ),
          );
        });
        await watch.start();
        // istiod first: ztunnel and the gateway exit when they cannot reach it (and a restarted
        // container fails the run).
        await applyAll(buildKindControlPlane());
        await waitRolledOut(ISTIOD, options.controlPlaneTimeoutMs ?? 180_000, signal);
      } catch (err) {
        await teardown();
        throw err;
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
      });
      // Ready pods are not yet pushed HEALTHY to the gateway: wait until requests get through.
      if (workloadOf(GATEWAY)) {
        const url = `http://127.0.0.1:${String(ingressHostPort)}/get`;
        await awaitServing({ url, clock, deadlineMs: deadline, ...(signal ? { signal } : {}) });
      }
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
      const w = need().watch;
      const pods = ours(w.list('pods')).map(toPodInfo);
      const gateway = workloadOf(GATEWAY);
      const gatewayReady = gateway !== undefined && isRolledOut(gateway, 'Deployment');
      return {
        nodes: w.list('nodes').map((n) => ({
          name: n.metadata?.labels?.['ztunnel-harness/node'] ?? n.metadata?.name ?? '',
          ip: n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '',
        })),
        controlPlane: {
          xds: 'istiod.istio-system.svc:15010',
          ca: 'https://istiod.istio-system.svc:15012',
          envoyXds: ENVOY_XDS_ADDRESS,
        },
        ...(gatewayReady ? { ingress: `127.0.0.1:${String(ingressHostPort)}` } : {}),
        services: ours(w.list('services')).map((s) => ({
          namespace: s.metadata?.namespace ?? 'default',
          name: s.metadata?.name ?? '',
          vip: s.spec?.clusterIP ?? '',
          ports: (s.spec?.ports ?? []).map((p) => ({
            port: p.port,
            targetPort: Number(p.targetPort ?? p.port),
          })),
        })),
        pods,
      };
    },
    logs: (pod) => [
      `(kind: container logs are not kept by the harness; kubectl logs -n ${pod.replace('/', ' ')})`,
    ],
    // Docker's engine and kind must answer (ToolMissing, exit 2, saying what to install).
    preflight: async () => {
      await tools.checkInstalled();
    },
    describe: () => ({ backend: 'kind', ...facts }),
    close,
    destroy,
  };
}
