import type { V1Container } from '@kubernetes/client-node';
import { join } from 'node:path';
import { nameComponent } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { PodRecord } from './cluster-state.ts';
import { buildContainerEnv } from './container-env.ts';
import { spawnContainer } from './container-process.ts';
import type { ContainerProcess } from './container-process.ts';
import { DEFAULT_LOCAL_TOOLS, localImageOf } from './images.ts';
import type { LocalImage } from './images.ts';
import type { KubeletContext, PodRuntime, RunningContainer } from './kubelet-context.ts';
import { setPodReady } from './kubelet-readiness.ts';
import { waitForListener } from './wait-for-listener.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

/** The node's containers' temp folder (TMPDIR), inside the node's run folder; made with it. */
export const nodeTmpDir = (nodeRunDir: string): string => join(nodeRunDir, 'tmp');

/**
 * When a log line was written, on the run's clock: its leading ISO timestamp (our components' lines
 * start with one, as ztunnel's do), else now.
 */
function logLineTimeMs(line: string, clock: Clock): number {
  const wallMs = Date.parse(line.slice(0, line.search(/\s/)));
  return Number.isFinite(wallMs) ? wallMs - clock.wallOffsetMs : clock.now();
}

/**
 * Starts one of a pod's containers: the image's program, in the pod's network namespace and the
 * node's cpu cgroup where those exist, its output in its log file; a later exit is a crash.
 */
export function startContainer(
  ctx: KubeletContext,
  pod: PodRecord,
  spec: V1Container,
  runtime: PodRuntime,
): RunningContainer {
  const { options } = ctx;
  const image = imageOf(ctx, spec);
  const [command = '', ...args] = containerCommand(ctx, image, spec, runtime);
  const process_ = spawnContainer({
    command,
    args,
    startedPattern: image.startedPattern,
    // Followed for the container's life only where a line is a lifecycle event (ztunnel's drain
    // deadline): the event's time is the line's own timestamp, as `kubectl logs --timestamps` shows.
    ...followLogEvents(ctx, pod, image),
    env: {
      ...buildContainerEnv(pod, spec, { ...options.env, volumeDirs: runtime.volumeDirs }),
      ...image.podEnv?.(pod, options.tools ?? DEFAULT_LOCAL_TOOLS),
      // What a container leaves in its temp folder goes with the cluster (a container's /tmp is
      // its own filesystem's; a killed pilot-agent cannot remove its folder itself).
      TMPDIR: nodeTmpDir(options.node.runDir),
    },
    logPath: join(options.logDir, `${pod.namespace}_${pod.name}_${spec.name}.log`),
  });
  const started = whenStarted(ctx, { pod, spec, runtime, image, process: process_ });
  const container: RunningContainer = { spec, process: process_, started, isReady: false };
  watchForCrash(ctx, pod, container, runtime);
  return container;
}

function imageOf(ctx: KubeletContext, spec: V1Container): LocalImage {
  return (
    ctx.options.images?.get(spec.image ?? '') ??
    localImageOf(spec.image ?? '', () => {
      throw new Error(`no local entrypoint for image ${String(spec.image)}`);
    })
  );
}

/** The container's command line: in the pod's network namespace, then in the node's cpu cgroup. */
function containerCommand(
  ctx: KubeletContext,
  image: LocalImage,
  spec: V1Container,
  runtime: PodRuntime,
): string[] {
  // The container's args follow the image's entrypoint, as Kubernetes appends them to ENTRYPOINT.
  const program = [
    ...(image.binary ? [image.binary] : [process.execPath, image.entrypoint]),
    ...(spec.args ?? []),
  ];
  const inPodNetwork = runtime.netns ? runtime.netns.command(program) : program;
  return ctx.options.inCpuGroup ? ctx.options.inCpuGroup(inPodNetwork) : inPodNetwork;
}

/** The image's log lines that are lifecycle events, emitted at the line's own time (none: not followed). */
function followLogEvents(
  ctx: KubeletContext,
  pod: PodRecord,
  image: LocalImage,
): { onLine?: (line: string) => void } {
  const logEvents = image.logEvents ?? [];
  const seen = new Set<(typeof logEvents)[number]>();
  if (logEvents.length === 0) return {};
  return {
    onLine: (line: string) => {
      for (const e of logEvents)
        if (e.pattern.test(line) && !(e.oncePerContainer && seen.has(e))) {
          seen.add(e);
          ctx.emit(
            e.kind,
            pod,
            line.trim().slice(0, 200),
            'container-log',
            logLineTimeMs(line, ctx.options.clock),
          );
        }
    },
  };
}

/** Its process's started line, and for a program that logs it before listening, its port open. */
function whenStarted(
  ctx: KubeletContext,
  c: { pod: PodRecord; spec: V1Container; runtime: PodRuntime; image: LocalImage; process: ContainerProcess },
): Promise<void> {
  const port = c.spec.ports?.[0]?.containerPort;
  if (!c.image.logsBeforeListening || port === undefined) return c.process.started;
  return c.process.started.then(() =>
    waitForListener({
      host: c.pod.appIp,
      port,
      ...(c.pod.inpodCapture ? { localAddress: ctx.options.netns?.()?.probeAddress } : {}),
      clock: ctx.options.clock,
      signal: c.runtime.probes.signal,
    }),
  );
}

/** A container that exits while its pod is not terminating has crashed: not ready, and reported. */
function watchForCrash(
  ctx: KubeletContext,
  pod: PodRecord,
  container: RunningContainer,
  runtime: PodRuntime,
): void {
  const { process: process_, spec } = container;
  void process_.exited.then((exit) => {
    if (runtime.terminating) return;
    container.isReady = false;
    const detail = `exit code ${String(exit.exitCode)}, signal ${String(exit.signal)}`;
    ctx.emit('container-exited', pod, `${spec.name} crashed: ${detail}`);
    setPodReady(ctx, pod, runtime);
    ctx.options.onCrash(pod, spec.name, `${detail}; last output: ${process_.lines(5).join(' | ')}`);
  });
}
