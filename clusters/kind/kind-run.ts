import type { HarnessError } from '../../lib/index.ts';
import type { BackendDescription, WorkloadRef } from '../backend.ts';
import { createEmitter, createEventLog } from '../events.ts';
import type { EventLog, EventSource, LifecycleEventKind } from '../events.ts';
import type { ClusterWatch } from './cluster-watch.ts';
import type { KindSettings } from './kind-options.ts';
import { DEFAULT_DEBOUNCE_AFTER_MS } from './kind-options.ts';
import { createKindTools } from './kind-tools.ts';
import { INGRESS_PATHS } from './load/ingress-paths.ts';
import type { KindTools } from './kind-tools.ts';
import { createPodPids } from './pod-pids.ts';
import type { PodPids } from './pod-pids.ts';
import type { KubeApi } from './kube-api.ts';
import { createPodLogStore } from './pod-logs.ts';
import type { PodLogStore } from './pod-logs.ts';
import type { KindProvisioned } from './provision/kind-provisioner.ts';
import { createRestartPolicy } from './restart-policy.ts';
import { KIND_SCOPE } from './run-scope.ts';
import type { RunScope } from './run-scope.ts';
import type { RestartPolicy } from './restart-policy.ts';
import type { LogFollowers } from './log-followers.ts';

/**
 * What the kind backend's parts share: its settings, what it was told and what it made (the tools,
 * the provisioned engine, the API and the watches, whether the cluster was created), the events it
 * saw and the workloads it applied. The steps (up/), the operations (ops/) and the teardown (down/)
 * each take it.
 */
export interface KindRun {
  readonly settings: KindSettings;
  /** The namespaces it watches and owns, its gateway (kind: the whole cluster's). */
  readonly scope: RunScope;
  readonly events: EventLog;
  readonly podLogs: PodLogStore;
  readonly restarts: RestartPolicy;
  /** Each pod's processes as this host sees them (its cgroup), for the CPU monitor. */
  readonly podPids: PodPids;
  /** Every key from the start: runs.csv's columns are checked before the cluster exists. */
  readonly facts: BackendDescription;
  /** Every Deployment and DaemonSet applied: waitForReady waits until the watch has seen each. */
  readonly applied: WorkloadRef[];
  /** Per workload, the generation a change we made must be observed at before its rollout counts. */
  readonly awaitedGeneration: Map<string, number>;
  /** Told on every watch update (waits re-check their condition). */
  readonly changeListeners: Set<() => void>;
  readonly failureListeners: Set<(err: HarnessError) => void>;
  /** Aborted with up()'s signal: kills the default tools' docker build, kind create and kind load. */
  readonly cancelTools: AbortController;
  /** Aborts a drain in progress: destroy() during close() deletes the cluster at once. */
  readonly draining: AbortController;
  /** Before provisioning: kind and docker from PATH; after it, the pinned kind and the engine's env. */
  tools: KindTools;
  provisioned: KindProvisioned | undefined;
  api: KubeApi | undefined;
  watch: ClusterWatch | undefined;
  /** Our containers' logs followed into logDir as they run (set with the API). */
  logFollowers: LogFollowers | undefined;
  /** Set before `kind create`: a cluster kind leaves half-made is ours to delete too. */
  created: boolean;
  /** `kind create cluster` succeeded: there are nodes whose logs `kind export logs` can save. */
  hasNodes: boolean;
  closing: Promise<void> | undefined;
  /** up()'s signal: its reason tells an interruption (no evidence to keep) from a failure. */
  upSignal: AbortSignal | undefined;
  /** waitForReady resolved once: the bring-up is over (its `workload` and `serving` steps timed). */
  isReadyOnce: boolean;
  /**
   * Logs are read from this time on: an existing cluster's components are older than the run, and
   * their logs before it (an earlier run's requests in the gateway's access log) are not this run's.
   * Undefined on kind: every container is the run's.
   */
  logsSince: Date | undefined;
}

export function createKindRun(
  settings: KindSettings,
  /** An existing cluster's (clusters/cluster/): its namespaces, and the facts its rows have. */
  other?: { scope: RunScope; facts: BackendDescription },
): KindRun {
  const cancelTools = new AbortController();
  const run: KindRun = {
    settings,
    scope: other?.scope ?? KIND_SCOPE,
    events: createEventLog(),
    podLogs: createPodLogStore(),
    podPids: createPodPids({ clock: settings.clock }),
    restarts: createRestartPolicy({
      emit: (pod, detail, node) => {
        emitEvent(run, 'container-exited', pod, detail, node);
      },
      fail: (err) => {
        failRun(run, err);
      },
      logDir: settings.logDir,
    }),
    facts: other?.facts ?? {
      nodes: settings.workers,
      kind_cluster: settings.name,
      timing_model: 'measured',
      ztunnel_mode: settings.ztunnelMode,
      ingress_path: INGRESS_PATHS[settings.loadFrom ?? 'host'],
      kind_version: '',
      docker_server_version: '',
      kubernetes_version: '',
      node_image: '',
      // Empty at istiod's default, as the rows before the arm reached kind (they ran it).
      debounce_after_ms:
        settings.debounceAfterMs === DEFAULT_DEBOUNCE_AFTER_MS ? '' : settings.debounceAfterMs,
    },
    applied: [],
    awaitedGeneration: new Map(),
    changeListeners: new Set(),
    failureListeners: new Set(),
    cancelTools,
    draining: new AbortController(),
    tools: makeKindTools({ settings, signal: cancelTools.signal }),
    provisioned: undefined,
    api: undefined,
    logFollowers: undefined,
    watch: undefined,
    created: false,
    hasNodes: false,
    closing: undefined,
    upSignal: undefined,
    isReadyOnce: false,
    logsSince: undefined,
  };
  return run;
}

/**
 * The tools the run uses: the injected ones (tests), else kind and docker from PATH (before
 * provisioning) or the pinned kind with the engine's environment (after it), cancelled by `signal`.
 */
export function makeKindTools(options: {
  settings: KindSettings;
  signal: AbortSignal;
  kindPath?: string;
  env?: Record<string, string>;
}): KindTools {
  return (
    options.settings.tools ??
    createKindTools({
      buildContext: options.settings.projectRoot,
      signal: options.signal,
      env: { ...options.settings.toolsEnv, ...options.env },
      ...(options.kindPath ? { kind: options.kindPath } : {}),
    })
  );
}

/**
 * A lifecycle event stamped on the run's clock as it arrived, as the API server's watch shows it
 * (the harness's rollout too: it is the patch the watch saw), unless the caller names the component
 * that wrote what the watch saw (an EndpointSlice: the endpoint controller's).
 */
export function emitEvent(
  run: KindRun,
  kind: LifecycleEventKind,
  object: string,
  detail?: string,
  node?: string,
  source?: EventSource,
): void {
  createEmitter(run.events, run.settings.clock, 'api-server')(kind, object, {
    ...(detail ? { detail } : {}),
    ...(node ? { node } : {}),
    ...(source ? { source } : {}),
  });
}

/** Fails the run (onFailure's listeners), unless it is closing. */
export function failRun(run: KindRun, err: HarnessError): void {
  // Stopping the informers aborts their watches, which they report as errors: not a failure.
  if (run.closing) return;
  for (const listener of run.failureListeners) listener(err);
}

/** A progress line ("kind: images: done in 12.3 s"). */
export function sayKind(run: KindRun, text: string): void {
  run.settings.onProgress?.(`kind: ${text}`);
}
