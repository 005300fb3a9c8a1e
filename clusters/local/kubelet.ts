import type { V1Container } from '@kubernetes/client-node';
import { execa } from 'execa';
import { join } from 'node:path';
import { waitAtMost } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { NodeAgentServer } from '../../mesh/node-agent/index.ts';
import { createEmitter } from '../events.ts';
import type { EventLog, EventSource, LifecycleEventKind } from '../events.ts';
import type { ClusterState, PodRecord } from './cluster-state.ts';
import { podKey } from './cluster-state.ts';
import { buildContainerEnv } from './container-env.ts';
import type { EnvContext } from './container-env.ts';
import { mountPodVolumes } from './pod-volumes.ts';
import type { VolumeContext } from './pod-volumes.ts';
import { spawnContainer } from './container-process.ts';
import { prepareVanish } from './vanished-address.ts';
import type { PendingVanish } from './vanished-address.ts';
import { HBONE_PORT } from '../../mesh/workload.ts';
import type { ContainerProcess } from './container-process.ts';
import { DEFAULT_LOCAL_TOOLS, localImageOf } from './images.ts';
import { waitForListener } from './wait-for-listener.ts';
import type { LocalImage, LocalTools } from './images.ts';
import type { NetworkWorld, PodNetns } from '../netns/network-world.ts';
import { runReadinessProbe } from './readiness-prober.ts';
import type { TimingModel } from './timing-model.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

/**
 * When a log line was written, on the run's clock: its leading ISO timestamp (our components' lines
 * start with one, as ztunnel's do), else now.
 */
function logLineTimeMs(line: string, clock: Clock): number {
  const wallMs = Date.parse(line.slice(0, line.search(/\s/)));
  return Number.isFinite(wallMs) ? wallMs - clock.wallOffsetMs : clock.now();
}

/** kubelet's minimumGracePeriodInSeconds: SIGKILL never comes sooner than 2 s after the preStop hook. */
export const MINIMUM_GRACE_AFTER_PRESTOP_MS = 2000;
/** Output kept per container after its pod is gone (for failure reports). */
const RETIRED_LOG_LINES = 500;
/** Kubernetes' default terminationGracePeriodSeconds. */
export const DEFAULT_GRACE_S = 30;

interface RunningContainer {
  spec: V1Container;
  process: ContainerProcess;
  /** Its process's started line, and for a program that logs it before listening, its port open. */
  started: Promise<void>;
  isReady: boolean;
}

interface PodRuntime {
  containers: RunningContainer[];
  probes: AbortController;
  /** The pod's volumes' directories, once mounted (before any container starts). */
  volumeDirs: ReadonlyMap<string, string>;
  started: Promise<void>;
  terminating?: Promise<void>;
  /** The pod's own network namespace, for a pod that asked for one (pod.netns). */
  netns?: PodNetns;
}

export interface KubeletOptions {
  node: { name: string; ip: string; runDir: string };
  /** 1-based: the node's bridge in the netns world. */
  nodeIndex: number;
  /** The cluster's network-namespace world, when it has one. */
  netns?: () => NetworkWorld | undefined;
  /** Set inside each pod namespace (sysctl name -> value): the run's per-namespace settings. */
  podSysctls?: Readonly<Record<string, string>>;
  /** Images beyond the built-in ones (istio/ztunnel's binary brought by the user). */
  images?: ReadonlyMap<string, LocalImage>;
  tools?: LocalTools;
  state: ClusterState;
  clock: Clock;
  timing: TimingModel;
  events: EventLog;
  nodeAgent: NodeAgentServer;
  env: Omit<EnvContext, 'volumeDirs'>;
  volumes: Omit<VolumeContext, 'nodeRunDir'>;
  /** Where each container's log file goes (`<namespace>_<pod>_<container>.log`). */
  logDir: string;
  /**
   * The node's cpu cgroup (--cpu-isolation): a container's command line started inside it, so the
   * container and all it forks (pilot-agent's Envoy) share the node's CPU share.
   */
  inCpuGroup?: (argv: string[]) => string[];
  /** A container exited while its pod was not being deleted: the component crashed. */
  onCrash(pod: PodRecord, container: string, detail: string): void;
}

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
/** The node's containers' temp folder (TMPDIR), inside the node's run folder; made with it. */
export const nodeTmpDir = (nodeRunDir: string): string => join(nodeRunDir, 'tmp');

export function createKubelet(options: KubeletOptions): Kubelet {
  const { clock, state, timing, events, node } = options;
  const runtimes = new Map<string, PodRuntime>();
  const retiredLogs = new Map<string, string[]>();
  const emitter = createEmitter(events, clock, 'kubelet');
  /** An event of one of this node's pods, seen by the kubelet unless `source` says who else. */
  const emit = (
    kind: LifecycleEventKind,
    pod: PodRecord,
    detail?: string,
    source?: EventSource,
    atMs?: number,
  ): void => {
    emitter(kind, podKey(pod), {
      node: node.name,
      ...(detail === undefined ? {} : { detail }),
      ...(source ? { source } : {}),
      ...(atMs === undefined ? {} : { atMs }),
    });
  };

  const setReady = (pod: PodRecord, runtime: PodRuntime): void => {
    const ready = runtime.containers.every((c) => c.isReady);
    if (ready === pod.isReady) return;
    pod.isReady = ready;
    if (ready) pod.readySinceMs = clock.now();
    emit(ready ? 'pod-ready' : 'pod-not-ready', pod);
    state.changed();
  };

  const startContainer = (pod: PodRecord, spec: V1Container, runtime: PodRuntime): RunningContainer => {
    const image =
      options.images?.get(spec.image ?? '') ??
      localImageOf(spec.image ?? '', () => {
        throw new Error(`no local entrypoint for image ${String(spec.image)}`);
      });
    // The container's args follow the image's entrypoint, as Kubernetes appends them to ENTRYPOINT.
    const program = [
      ...(image.binary ? [image.binary] : [process.execPath, image.entrypoint]),
      ...(spec.args ?? []),
    ];
    const inPodNetwork = runtime.netns ? runtime.netns.command(program) : program;
    const [command = '', ...args] = options.inCpuGroup ? options.inCpuGroup(inPodNetwork) : inPodNetwork;
    const logEvents = image.logEvents ?? [];
    const seen = new Set<(typeof logEvents)[number]>();
    const process_ = spawnContainer({
      command,
      args,
      startedPattern: image.startedPattern,
      // Followed for the container's life only where a line is a lifecycle event (ztunnel's drain
      // deadline): the event's time is the line's own timestamp, as `kubectl logs --timestamps` shows.
      ...(logEvents.length > 0
        ? {
            onLine: (line: string) => {
              for (const e of logEvents)
                if (e.pattern.test(line) && !(e.oncePerContainer && seen.has(e))) {
                  seen.add(e);
                  emit(e.kind, pod, line.trim().slice(0, 200), 'container-log', logLineTimeMs(line, clock));
                }
            },
          }
        : {}),
      env: {
        ...buildContainerEnv(pod, spec, { ...options.env, volumeDirs: runtime.volumeDirs }),
        ...image.podEnv?.(pod, options.tools ?? DEFAULT_LOCAL_TOOLS),
        // What a container leaves in its temp folder goes with the cluster (a container's /tmp is
        // its own filesystem's; a killed pilot-agent cannot remove its folder itself).
        TMPDIR: nodeTmpDir(node.runDir),
      },
      logPath: join(options.logDir, `${pod.namespace}_${pod.name}_${spec.name}.log`),
    });
    const port = spec.ports?.[0]?.containerPort;
    const started =
      image.logsBeforeListening && port !== undefined
        ? process_.started.then(() =>
            waitForListener({
              host: pod.appIp,
              port,
              ...(pod.inpodCapture ? { localAddress: options.netns?.()?.probeAddress } : {}),
              clock,
              signal: runtime.probes.signal,
            }),
          )
        : process_.started;
    const container: RunningContainer = { spec, process: process_, started, isReady: false };
    void process_.exited.then((exit) => {
      if (runtime.terminating) return;
      container.isReady = false;
      const detail = `exit code ${String(exit.exitCode)}, signal ${String(exit.signal)}`;
      emit('container-exited', pod, `${spec.name} crashed: ${detail}`);
      setReady(pod, runtime);
      options.onCrash(pod, spec.name, `${detail}; last output: ${process_.lines(5).join(' | ')}`);
    });
    return container;
  };

  const probe = (pod: PodRecord, container: RunningContainer, runtime: PodRuntime): void => {
    const p = container.spec.readinessProbe;
    if (!p?.httpGet) {
      container.isReady = true;
      setReady(pod, runtime);
      return;
    }
    void runReadinessProbe({
      clock,
      signal: runtime.probes.signal,
      spec: {
        // Kubelet probes are not captured by ambient (istio-cni exempts the kubelet's SNAT address):
        // in a captured namespace the probe comes from that address.
        host: pod.appIp,
        ...(pod.inpodCapture ? { localAddress: options.netns?.()?.probeAddress } : {}),
        port: Number(p.httpGet.port),
        path: p.httpGet.path ?? '/',
        periodMs: (p.periodSeconds ?? 10) * 1000,
        timeoutMs: (p.timeoutSeconds ?? 1) * 1000,
        failureThreshold: p.failureThreshold ?? 3,
        successThreshold: p.successThreshold ?? 1,
        initialDelayMs: (p.initialDelaySeconds ?? 0) * 1000,
      },
      onResult: (ready) => {
        container.isReady = ready;
        setReady(pod, runtime);
      },
    });
  };

  /** Address holders, prepared or holding: all released at teardown. */
  const holders = new Set<{ release(): void }>();
  /** The pod's address-holder helper (vanished-address.ts), for the ports the mesh dials. */
  const prepareAddressVanish = (pod: PodRecord): Promise<PendingVanish | Error> => {
    if (pod.owner.kind !== 'Deployment') return Promise.resolve(new Error('not a workload pod'));
    const ports = [
      ...pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort)),
      ...(pod.isMeshed ? [HBONE_PORT] : []),
    ];
    return prepareVanish(pod.podIp, ports).then(
      (pending) => {
        holders.add(pending);
        return pending;
      },
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
  };
  const vanishAddress = async (pod: PodRecord, pending: Promise<PendingVanish | Error>): Promise<void> => {
    const ready = await pending;
    if (ready instanceof Error) {
      if (pod.owner.kind === 'Deployment')
        emit('sandbox-removed', pod, `${pod.podIp} refuses instead (no address holder: ${ready.message})`);
      return;
    }
    if (lifecycle.destroyed) {
      ready.release();
      return;
    }
    try {
      await ready.vanish();
      emit('sandbox-removed', pod, `${pod.podIp} answers nothing from now on`);
    } catch (err) {
      emit(
        'sandbox-removed',
        pod,
        `${pod.podIp} refuses instead (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  };

  const lifecycle = { destroyed: false };
  // A function, so the check after an await is not narrowed away: destroy() may run meanwhile.
  const isDestroyed = (): boolean => lifecycle.destroyed;
  const startPod = async (pod: PodRecord, runtime: PodRuntime): Promise<void> => {
    await clock.sleep(timing.kubeletReactionMs + timing.sandboxSetupMs);
    if (isDestroyed()) return;
    if (pod.netns) {
      const world = options.netns?.();
      if (!world) throw new Error(`${podKey(pod)} asks for a network namespace; this cluster has none`);
      runtime.netns = await world.addPod(options.nodeIndex, pod.name, pod.podIp, {
        appAddress: pod.appIp !== pod.podIp,
        ...(options.podSysctls ? { sysctls: options.podSysctls } : {}),
        ...(pod.inpodCapture ? { capture: true } : {}),
      });
    }
    if (pod.isMeshed && !pod.dedicatedZtunnel) {
      const ports = pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
      await options.nodeAgent.addWorkload({
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
      emit('add-workload', pod, undefined, 'node-agent');
    }
    runtime.volumeDirs = await mountPodVolumes(pod, { ...options.volumes, nodeRunDir: node.runDir });
    if (isDestroyed()) return;
    runtime.containers = pod.spec.containers.map((spec) => startContainer(pod, spec, runtime));
    await Promise.all(
      runtime.containers.map(async (c) => {
        await c.started;
        emit('container-started', pod, `${c.spec.name} (pid ${String(c.process.pid)})`);
        probe(pod, c, runtime);
      }),
    );
    pod.phase = 'Running';
    state.changed();
  };

  const runPreStop = async (pod: PodRecord, container: RunningContainer, graceMs: number): Promise<void> => {
    const hook = container.spec.lifecycle?.preStop;
    if (!hook) return;
    emit('prestop-started', pod, `${container.spec.name}: ${JSON.stringify(hook)}`);
    if (hook.sleep) {
      await clock.sleep(Math.min(hook.sleep.seconds * 1000, graceMs));
      return;
    }
    const [command = 'true', ...args] = hook.exec?.command ?? [];
    const child = execa(command, args, { reject: false, stdin: 'ignore', forceKillAfterDelay: false });
    const done = await waitAtMost(clock, child, graceMs);
    if (!done.done) child.kill('SIGKILL');
  };

  const killContainer = async (
    pod: PodRecord,
    container: RunningContainer,
    graceMs: number,
  ): Promise<boolean> => {
    const startMs = clock.now();
    await runPreStop(pod, container, graceMs);
    const remainingMs = Math.max(graceMs - (clock.now() - startMs), MINIMUM_GRACE_AFTER_PRESTOP_MS);
    emit('sigterm', pod, container.spec.name);
    container.process.kill('SIGTERM');
    const exited = await waitAtMost(clock, container.process.exited, remainingMs);
    if (!exited.done) {
      emit('sigkill', pod, `${container.spec.name} after ${String(Math.round(clock.now() - startMs))} ms`);
      container.process.kill('SIGKILL');
    }
    const exit = await container.process.exited;
    await clock.sleep(timing.exitDetectionMs);
    emit(
      'container-exited',
      pod,
      `${container.spec.name}: exit code ${String(exit.exitCode)}, signal ${String(exit.signal)}`,
    );
    return exit.exitCode === 0;
  };

  const terminatePod = async (pod: PodRecord, runtime: PodRuntime): Promise<void> => {
    await clock.sleep(timing.kubeletReactionMs);
    await runtime.started.catch(() => undefined); // a pod deleted while starting is killed once started
    const graceMs = (pod.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_S) * 1000;
    // Started now, while the containers stop, so that the address can vanish the moment CNI DEL runs
    // (a pod in a namespace of its own loses its veth instead). A pod with a ztunnel of its own is
    // served by it: the node's hears nothing of it.
    const servedByNode = pod.isMeshed && !pod.dedicatedZtunnel;
    const vanishing = pod.netns ? undefined : prepareAddressVanish(pod);
    // istio/ztunnel#1191 option 1's hook: the node agent tells ztunnel the termination has started.
    if (servedByNode) await options.nodeAgent.shutdownStarting(pod.uid);
    const clean = await Promise.all(runtime.containers.map((c) => killContainer(pod, c, graceMs)));
    runtime.probes.abort();
    pod.phase = clean.every(Boolean) ? 'Succeeded' : 'Failed';
    pod.isReady = false;
    emit('pod-terminal', pod, pod.phase);
    state.changed();
    // CNI DEL: the plugins' DEL runs in reverse order, ztunnel's hook last-added so first (option 2
    // of istio/ztunnel#1191 drains there, while the network still exists); then the veth goes and
    // the pod's IP answers nothing; then, as istio-cni does today, DelWorkload reaches ztunnel once
    // the pod is gone, when nothing ztunnel sends on the pod's connections reaches anyone.
    if (servedByNode) await options.nodeAgent.cniDel(pod.uid);
    if (runtime.netns) {
      await runtime.netns.remove();
      emit('sandbox-removed', pod, `${pod.podIp} gone with the pod's veth`);
    } else if (vanishing) await vanishAddress(pod, vanishing);
    if (servedByNode) {
      await options.nodeAgent.delWorkload(pod.uid, { networkGone: true });
      emit('del-workload', pod, undefined, 'node-agent');
    }
    state.pods.delete(podKey(pod));
    retiredLogs.set(
      podKey(pod),
      runtime.containers.flatMap((c) => c.process.lines(RETIRED_LOG_LINES)),
    );
    runtimes.delete(pod.uid);
    emit('pod-removed', pod);
    state.changed();
  };

  const sync = (): void => {
    for (const pod of state.pods.values()) {
      if (pod.nodeName !== node.name) continue;
      let runtime = runtimes.get(pod.uid);
      if (!runtime) {
        const created: PodRuntime = {
          containers: [],
          probes: new AbortController(),
          volumeDirs: new Map(),
          started: Promise.resolve(),
        };
        created.started = startPod(pod, created);
        created.started.catch((err: unknown) => {
          options.onCrash(pod, '(start)', String(err));
        });
        runtimes.set(pod.uid, created);
        runtime = created;
      }
      if (pod.deletionAtMs !== undefined && !runtime.terminating) {
        runtime.terminating = terminatePod(pod, runtime);
        runtime.terminating.catch((err: unknown) => {
          options.onCrash(pod, '(termination)', String(err));
        });
      }
    }
  };
  const unwatch = state.watch(sync);

  return {
    logs: (key) => {
      const pod = state.pods.get(key);
      const runtime = pod ? runtimes.get(pod.uid) : undefined;
      return runtime?.containers.flatMap((c) => c.process.lines()) ?? retiredLogs.get(key) ?? [];
    },
    containerPids: (podUid) => runtimes.get(podUid)?.containers.map((c) => c.process.pid) ?? [],
    processCount: () => [...runtimes.values()].reduce((n, r) => n + r.containers.length, 0),
    destroy: async (graceMs = 0) => {
      lifecycle.destroyed = true;
      unwatch();
      const all = [...runtimes.values()];
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
      for (const h of holders) h.release();
      holders.clear();
      await Promise.all(all.flatMap((r) => r.containers.map((c) => c.process.exited)));
    },
  };
}
