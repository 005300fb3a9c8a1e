import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import {
  badInput,
  createLogger,
  createSystemClock,
  ErrorCode,
  HarnessError,
  makeDirectory,
} from '../../lib/index.ts';
import type { Clock, Logger } from '../../lib/index.ts';
import { startControlPlane } from '../../mesh/control-plane/index.ts';
import type { ControlPlane } from '../../mesh/control-plane/index.ts';
import { startNodeAgentServer } from '../../mesh/node-agent/index.ts';
import { ensureZdsRelay } from '../../mesh/zds/index.ts';
import { createTokenIssuer, ISTIO_CA_AUDIENCE } from '../../mesh/pki/index.ts';
import type { TokenIssuer } from '../../mesh/pki/index.ts';
import type { NodeAgentServer } from '../../mesh/node-agent/index.ts';
import type { BackendDescription, ClusterBackend, PodInfo, RolloutResult, WorkloadRef } from '../backend.ts';
import { createEventLog, workloadKey } from '../events.ts';
import type { LifecycleEventKind } from '../events.ts';
import type { ClusterObject } from '../manifests/index.ts';
import {
  buildRolloutRestartPatch,
  GATEWAY_PORT,
  isDaemonSet,
  isDeployment,
  isService,
} from '../manifests/index.ts';
import { createAddressPool, pickAddressBlock } from './address-pool.ts';
import { checkLocalPreflight } from './local-preflight.ts';
import { createClusterState, isActive, podKey } from './cluster-state.ts';
import type { DaemonSetRecord, DeploymentRecord } from './cluster-state.ts';
import { startControllers } from './controllers.ts';
import { createCpuGroups, GENERATOR_GROUP } from './cpu-cgroups.ts';
import type { CpuGroups, CpuIsolation } from './cpu-cgroups.ts';
import { createKubelet, nodeTmpDir } from './kubelet.ts';
import type { Kubelet } from './kubelet.ts';
import { hashTemplate } from './pod-factory.ts';
import { createStateSource } from './state-source.ts';
import { normalizeTimingModel } from './timing-model.ts';
import type { TimingModel } from './timing-model.ts';
import { validateClusterObject } from './validate-objects.ts';
import { waitForEvent } from '../wait-for-event.ts';
import { createNetworkWorld } from '../netns/network-world.ts';
import { startCloseCapture, WIRE_CLOSES_LOG, wireCaptureUnavailable } from '../netns/wire-closes.ts';
import type { CloseCapture } from '../netns/wire-closes.ts';
import type { NetworkWorld } from '../netns/network-world.ts';
import type { LocalImage, LocalTools } from './images.ts';
import { IMAGES } from '../manifests/index.ts';
import { istioSharedZtunnelImage, startSharedZdsNodeAgent } from './istio-shared-ztunnel.ts';
import type { IstioSharedCa } from './istio-shared-ztunnel.ts';
import type { RootMaterial } from '../../mesh/pki/index.ts';

export interface LocalBackendOptions {
  nodeCount?: number;
  /** 127.<block>.0.0/16 for this cluster; random in 150-249 by default. */
  addressBlock?: number;
  timing?: Partial<TimingModel>;
  clock?: Clock;
  log?: Logger;
  /** Container logs are written here when set (else into the cluster's temporary folder). */
  logDir?: string;
  /**
   * Pods that ask for it (POD_NETWORK_ANNOTATION) get a network namespace of their own, on a bridge
   * per node (clusters/netns/network-world.ts; root only).
   */
  netns?: boolean;
  /** Set inside every pod namespace (netns): per-namespace sysctls, e.g. net.ipv4.tcp_migrate_req. */
  podSysctls?: Readonly<Record<string, string>>;
  /** The mesh CA's root instead of a fresh one (istio/ztunnel's test root, for its FAKE_CA). */
  caRoot?: RootMaterial;
  /** Images beyond the built-in ones (istio/ztunnel's binary brought by the user). */
  images?: ReadonlyMap<string, LocalImage>;
  /**
   * istio/ztunnel's binary as the ztunnel DaemonSet in shared mode (--ztunnel-impl istio-shared;
   * needs `netns`, and with `ca: 'fake'` the test root as `caRoot`): each DaemonSet pod in a
   * namespace of its own, the node agent speaking ZDS (mesh/zds; Go builds its relay), discovery
   * over delta ADS and certificates from the gRPC CA (clusters/local/istio-shared-ztunnel.ts).
   */
  istioShared?: { binary: string; ca?: IstioSharedCa };
  /** Where the harness's tools are (Envoy); default the pinned copies in .tools. */
  tools?: LocalTools;
  /**
   * cpu cgroups (root, cgroup v1): each node's pods in one of their own and the load generator in
   * another, equal cpu.shares; nodes-pinned adds cpusets (clusters/local/cpu-cgroups.ts). Default none.
   */
  cpuIsolation?: CpuIsolation;
}

/** What the local API server offers beyond the backend contract (tests use it as kubectl would). */
export interface LocalBackend extends ClusterBackend {
  /**
   * `kubectl create token <sa> --audience <aud>` (TokenRequest, not bound to a pod): a credential
   * for the CA as that service account. Only after up().
   */
  createToken(serviceAccount: { namespace: string; name: string }, audience?: string): Promise<string>;
  /** The mesh root (the istio-ca-root-cert ConfigMap's root-cert.pem). Only after up(). */
  meshRootPem(): string;
}

/**
 * close(): every container gets SIGTERM and this long to exit by itself (its handlers run: logs
 * flushed, connections closed), as `kubectl delete --grace-period=2` would; then SIGKILL. Short on
 * purpose: ztunnel's own drain would wait for the gateway's pooled connections until its deadline.
 * destroy(): SIGKILL at once (an aborted or crashed run).
 */
export const CLOSE_GRACE_MS = 2000;

/** The most nodes one local cluster runs (each is a kubelet, a ztunnel and its pods on these cores). */
export const MAX_NODES = 20;

/** The embedded default backend: Kubernetes semantics over real processes on loopback (docs/architecture.md, The local backend). */
export function createLocalBackend(options: LocalBackendOptions = {}): LocalBackend {
  const clock = options.clock ?? createSystemClock();
  const log = options.log ?? createLogger({ component: 'local-cluster', level: 'warn' });
  const timing = normalizeTimingModel(options.timing);
  const nodeCount = options.nodeCount ?? 2;
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > MAX_NODES)
    throw badInput('the node count', `an integer 1-${String(MAX_NODES)}`, nodeCount);
  const addresses = createAddressPool(options.addressBlock ?? pickAddressBlock());
  const nodes = Array.from({ length: nodeCount }, (_, i) => ({
    name: `node-${String(i + 1)}`,
    ip: addresses.node(i),
  }));
  const events = createEventLog();
  const state = createClusterState({ clock, watchFanoutMs: timing.watchFanoutMs });
  const failureListeners = new Set<(err: HarnessError) => void>();
  const agents: NodeAgentServer[] = [];
  const kubelets: Kubelet[] = [];
  let controlPlane: ControlPlane | undefined;
  let tokens: TokenIssuer | undefined;
  let stopControllers: (() => void) | undefined;
  let runDir: string | undefined;
  let closing: Promise<void> | undefined;
  let world: NetworkWorld | undefined;
  let closeCapture: CloseCapture | undefined;
  let cpuGroups: CpuGroups | undefined;
  const cpuIsolation = options.cpuIsolation ?? 'none';

  const emit = (kind: LifecycleEventKind, object: string, detail?: string): void => {
    events.emit({
      atMs: clock.now(),
      kind,
      source:
        kind.startsWith('workload') || kind === 'push' || kind === 'xds-nack' ? 'control-plane' : 'harness',
      object,
      ...(detail ? { detail } : {}),
    });
  };
  const fail = (err: HarnessError): void => {
    log.error(err.message);
    for (const listener of failureListeners) listener(err);
  };
  const workloadOf = (ref: WorkloadRef): DeploymentRecord | DaemonSetRecord => {
    const key = `${ref.namespace}/${ref.name}`;
    const found = ref.kind === 'Deployment' ? state.deployments.get(key) : state.daemonSets.get(key);
    if (!found)
      throw badInput(
        `${ref.kind} ${key}`,
        'an applied workload',
        'nothing by that name',
        'apply its manifest first',
      );
    return found;
  };
  const resolveService = (name: string, namespace: string): string | undefined => {
    if (name === 'istiod' && namespace === 'istio-system') return addresses.controlPlane();
    return state.services.get(`${namespace}/${name}`)?.vip;
  };

  const up = async (): Promise<void> => {
    runDir = await mkdtemp(join(tmpdir(), 'ztunnel-harness-cluster-'));
    // Container logs: the run's folder when given, else beside the cluster's other runtime files.
    const logDir = options.logDir ?? join(runDir, 'logs');
    await makeDirectory(logDir);
    if (cpuIsolation !== 'none')
      cpuGroups = await createCpuGroups({
        mode: cpuIsolation,
        // The address block tells clusters apart; the PID, a group left by a killed run from ours.
        name: `ztunnel-harness-${String(addresses.block)}-${String(process.pid)}`,
        nodes: nodes.map((n) => n.name),
      });
    const issuer = (tokens = await createTokenIssuer());
    if (options.netns) {
      const made = (world = await createNetworkWorld({ nodes: nodeCount }));
      addresses.attachNetns((node) => made.reserve(node));
      // What the gateway saw of each HBONE close (FIN or RST), for the deadlines' accounting.
      if (!(await wireCaptureUnavailable()))
        closeCapture = await startCloseCapture({
          inNs: (argv) => made.clusterCommand(argv),
          device: made.uplink,
          logPath: join(logDir, WIRE_CLOSES_LOG),
        });
    }
    controlPlane = await startControlPlane({
      ...(options.caRoot ? { caRoot: options.caRoot } : {}),
      source: createStateSource(state),
      // TokenReview by the local API server: its signature, and the bound pod still existing.
      authenticate: (token) =>
        issuer.review(
          token,
          ISTIO_CA_AUDIENCE,
          (namespace, name) => state.pods.get(`${namespace}/${name}`)?.uid,
        ),
      clock,
      log: log.child({ component: 'control-plane' }),
      host: addresses.controlPlane(),
      // istio/ztunnel's binary runs in a namespace of its own: it reaches the host at the world's address.
      ...(world ? { ztunnelXdsHost: world.hostAddress } : {}),
      debounceQuietMs: timing.debounceQuietMs,
      debounceMaxMs: timing.debounceMaxMs,
      pushLatencyMs: timing.pushLatencyMs,
      onNack: (nack) => {
        emit('xds-nack', nack.node, `${nack.typeUrl.replace(/^.*\./, '')} ${nack.version}: ${nack.message}`);
      },
      onPush: (report) => {
        emit(
          'push',
          'control-plane',
          `version ${report.version}, acked ${String(report.acked)}/${String(report.subscribers)}`,
        );
        for (const w of report.becameUnhealthy) emit('workload-unhealthy-pushed', `${w.namespace}/${w.name}`);
        for (const w of report.removed) emit('workload-removed-pushed', `${w.namespace}/${w.name}`);
      },
    }).catch((err: unknown) => {
      throw new HarnessError(
        ErrorCode.ComponentFailed,
        `the control plane could not start on ${addresses.controlPlane()} (is another local cluster using address block ${String(addresses.block)}?): ${String(err)}`,
        { cause: err },
      );
    });
    const groups = cpuGroups;
    const clusterRunDir = runDir;
    const shared = options.istioShared;
    const relayBinary = shared ? await ensureZdsRelay() : undefined;
    const images = shared
      ? new Map([
          ...(options.images ?? []),
          [
            IMAGES.ztunnel,
            istioSharedZtunnelImage({
              binary: shared.binary,
              nodeRunDir: (name) => join(clusterRunDir, name),
              xds: { address: controlPlane.ztunnelXdsAddress, rootCertPem: controlPlane.ca.rootPem },
              ...(shared.ca ? { ca: shared.ca } : {}),
            }),
          ],
        ])
      : options.images;
    for (const node of nodes) {
      const nodeRunDir = join(runDir, node.name);
      await makeDirectory(nodeTmpDir(nodeRunDir));
      const socketPath = join(nodeRunDir, 'ztunnel.sock');
      const agent = relayBinary
        ? await startSharedZdsNodeAgent({
            relayBinary,
            socketPath,
            log: log.child({ component: 'zds-node-agent', node: node.name }),
          })
        : await startNodeAgentServer(socketPath);
      agents.push(agent);
      kubelets.push(
        createKubelet({
          node: { ...node, runDir: nodeRunDir },
          nodeIndex: nodes.indexOf(node) + 1,
          netns: () => world,
          ...(options.podSysctls ? { podSysctls: options.podSysctls } : {}),
          ...(images ? { images } : {}),
          ...(options.tools ? { tools: options.tools } : {}),
          state,
          clock,
          timing,
          events,
          nodeAgent: agent,
          env: { resolveService },
          volumes: { tokens: issuer, rootCertPem: controlPlane.ca.rootPem },
          logDir,
          ...(groups ? { inCpuGroup: (argv: string[]) => groups.command(node.name, argv) } : {}),
          onCrash: (pod, container, detail) => {
            fail(
              new HarnessError(
                ErrorCode.ComponentFailed,
                `pod ${podKey(pod)} on ${pod.nodeName}: container ${container} failed: ${detail}`,
              ),
            );
          },
        }),
      );
    }
    stopControllers = startControllers({
      state,
      clock,
      events,
      addresses,
      nodes,
      ...(shared ? { sharedIstioZtunnel: true } : {}),
    });
  };

  const apply = async (objects: ClusterObject[]): Promise<void> => {
    await Promise.resolve(); // errors below reject the promise, never throw synchronously
    const extraImages = new Set(options.images?.keys());
    for (const object of objects) validateClusterObject(object, extraImages);
    for (const object of structuredClone(objects)) {
      const key = `${object.metadata?.namespace ?? 'default'}/${object.metadata?.name ?? ''}`;
      if (isService(object)) {
        state.services.set(key, { object, vip: state.services.get(key)?.vip ?? addresses.nextVip() });
      } else if (isDeployment(object)) {
        const existing = state.deployments.get(key);
        state.deployments.set(key, {
          object,
          templateHash: hashTemplate(object.spec?.template),
          replicaSets: existing?.replicaSets ?? [],
        });
      } else if (isDaemonSet(object)) {
        state.daemonSets.set(key, { object, templateHash: hashTemplate(object.spec?.template) });
      }
    }
    state.changed();
  };

  const isWorkloadReady = (
    w: DeploymentRecord | DaemonSetRecord,
    kind: 'Deployment' | 'DaemonSet',
  ): boolean => {
    const namespace = w.object.metadata?.namespace ?? 'default';
    const pods = [...state.pods.values()].filter(
      (p) => p.owner.kind === kind && p.owner.name === w.object.metadata?.name && p.namespace === namespace,
    );
    const current = pods.filter((p) => isActive(p) && p.isReady && p.owner.templateHash === w.templateHash);
    const want = kind === 'DaemonSet' ? nodes.length : ((w as DeploymentRecord).object.spec?.replicas ?? 1);
    return current.length === want && pods.length === want;
  };

  /** Every Ready pod has reached the data plane as HEALTHY (a gateway can route to it). */
  const isReadinessPushed = (): boolean => {
    const healthy = new Set(
      controlPlane
        ?.lastPushed()
        .workloads.filter((w) => w.status === 'HEALTHY')
        .map((w) => w.uid),
    );
    return [...state.pods.values()].filter((p) => p.isReady && isActive(p)).every((p) => healthy.has(p.uid));
  };

  const restart = async (ref: WorkloadRef): Promise<void> => {
    await Promise.resolve();
    const workload = workloadOf(ref);
    const template: V1PodTemplateSpec = workload.object.spec?.template ?? {};
    const patch = buildRolloutRestartPatch(new Date(clock.now() + clock.wallOffsetMs));
    template.metadata = {
      ...template.metadata,
      annotations: { ...template.metadata?.annotations, ...patch.spec.template.metadata.annotations },
    };
    workload.templateHash = hashTemplate(template);
    workload.rollout = { startedAtMs: clock.now() };
    emit('rollout-started', workloadKey(ref), 'rollout restart');
    state.changed();
  };

  const podInfo = (): PodInfo[] =>
    [...state.pods.values()].map((p) => ({
      name: p.name,
      namespace: p.namespace,
      node: p.nodeName,
      podIp: p.podIp,
      appIp: p.appIp,
      isMeshed: p.isMeshed,
      isReady: p.isReady,
      isDeleting: p.deletionAtMs !== undefined,
      phase: p.phase,
      owner: `${p.owner.kind.toLowerCase()}/${p.owner.name}`,
      pids: kubelets.flatMap((k) => k.containerPids(p.uid)),
    }));

  const ingressAddress = (): { ingress?: string } => {
    const gateway = [...state.pods.values()].find(
      (p) => p.owner.name === 'istio-ingressgateway' && p.isReady && isActive(p),
    );
    return gateway ? { ingress: `${gateway.podIp}:${String(GATEWAY_PORT)}` } : {};
  };

  /**
   * Stops controllers, then every container (SIGTERM and `graceMs` to exit, then SIGKILL), then the
   * control plane; the cpu cgroups go last.
   */
  const teardown = async (graceMs: number): Promise<void> => {
    try {
      stopControllers?.();
      state.close();
      await Promise.all(kubelets.map((k) => k.destroy(graceMs)));
      await Promise.all([controlPlane?.close(), ...agents.map((a) => a.close()), closeCapture?.stop()]);
      world?.close();
      if (runDir) await rm(runDir, { recursive: true, force: true });
    } finally {
      // Last, and whatever failed before: a task still in a group (a generator being stopped) is
      // moved out before the group goes.
      await cpuGroups?.close();
    }
  };

  return {
    kind: 'local',
    clock,
    up,
    apply,
    waitForReady: ({ timeoutMs, signal }) =>
      waitForEvent({
        events,
        clock,
        timeoutMs,
        what: 'every workload to be Ready',
        ...(signal ? { signal } : {}),
        check: () =>
          [...state.deployments.values()].every((d) => isWorkloadReady(d, 'Deployment')) &&
          [...state.daemonSets.values()].every((d) => isWorkloadReady(d, 'DaemonSet')) &&
          isReadinessPushed()
            ? true
            : undefined,
      }).then(() => undefined),
    rolloutRestart: restart,
    scale: async (ref, replicas) => {
      await Promise.resolve();
      const workload = workloadOf(ref) as DeploymentRecord;
      if (ref.kind !== 'Deployment' || !workload.object.spec)
        throw badInput('the workload to scale', 'a Deployment', `${ref.kind} ${ref.name}`);
      if (!Number.isInteger(replicas) || replicas < 0)
        throw badInput('replicas', 'a non-negative integer', replicas);
      workload.object.spec.replicas = replicas;
      state.changed();
    },
    deletePod: async (namespace, name) => {
      await Promise.resolve();
      const pod = state.pods.get(`${namespace}/${name}`);
      if (!pod) throw badInput('the pod to delete', 'an existing pod', `${namespace}/${name}`);
      pod.deletionAtMs ??= clock.now();
      events.emit({
        atMs: clock.now(),
        kind: 'pod-deleting',
        source: 'api-server',
        object: podKey(pod),
        node: pod.nodeName,
        detail: 'deleted by the harness',
      });
      state.changed();
    },
    waitForRollout: async (ref, { timeoutMs, untilOldPodsGone, signal }) => {
      await Promise.resolve();
      const workload = workloadOf(ref);
      return waitForEvent<RolloutResult>({
        events,
        clock,
        timeoutMs,
        what: `the rollout of ${ref.kind} ${ref.namespace}/${ref.name}`,
        ...(signal ? { signal } : {}),
        check: () => {
          const r = workload.rollout;
          if (r?.statusCompleteAtMs === undefined) return undefined;
          if (untilOldPodsGone && r.oldPodsGoneAtMs === undefined) return undefined;
          return {
            startedAtMs: r.startedAtMs,
            statusCompleteAtMs: r.statusCompleteAtMs,
            ...(r.oldPodsGoneAtMs === undefined ? {} : { oldPodsGoneAtMs: r.oldPodsGoneAtMs }),
          };
        },
      });
    },
    onEvent: (listener) => events.on(listener),
    events: () => events.all(),
    onFailure: (listener) => {
      failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },
    addresses: () => ({
      nodes,
      ...ingressAddress(),
      controlPlane: {
        xds: controlPlane?.xdsAddress ?? '',
        ca: controlPlane?.caUrl ?? '',
        envoyXds: controlPlane?.envoyXdsAddress ?? '',
      },
      services: [...state.services.values()].map(({ object, vip }) => ({
        namespace: object.metadata?.namespace ?? 'default',
        name: object.metadata?.name ?? '',
        vip,
        ports: (object.spec?.ports ?? []).map((p) => ({
          port: p.port,
          targetPort: Number(p.targetPort ?? p.port),
        })),
      })),
      pods: podInfo(),
    }),
    logs: (pod) => kubelets.flatMap((k) => k.logs(pod)),
    preflight: () => checkLocalPreflight({ addresses, options, cpuIsolation }),
    describe: () => ({
      backend: 'local',
      nodes: nodeCount,
      timing_model: 'modelled',
      ztunnel_mode: 'in-pod',
      ingress_path: 'direct',
      address_block: addresses.block,
      // Where istio/ztunnel's binary got its certificates (--istio-shared-ca), when it is the DaemonSet.
      istio_shared_ca: options.istioShared ? (options.istioShared.ca ?? 'istiod') : '',
      ...(Object.fromEntries(
        Object.entries(timing).map(([k, v]) => [`timing_${k}`, v]),
      ) as BackendDescription),
    }),
    generatorCommand: (argv) => (cpuGroups ? cpuGroups.command(GENERATOR_GROUP, argv) : [...argv]),
    close: () => (closing ??= teardown(CLOSE_GRACE_MS)),
    destroy: () => {
      // An abort during a close: whatever is still running is killed now.
      if (closing) for (const k of kubelets) void k.destroy(0);
      return (closing ??= teardown(0));
    },
    createToken: (serviceAccount, audience = ISTIO_CA_AUDIENCE) => {
      if (!tokens) return Promise.reject(new Error('the cluster is not up'));
      return tokens.issue(
        { namespace: serviceAccount.namespace, serviceAccount: serviceAccount.name },
        { audience, expirationSeconds: 3600 },
      );
    },
    meshRootPem: () => {
      if (!controlPlane) throw new Error('the cluster is not up');
      return controlPlane.ca.rootPem;
    },
  };
}
