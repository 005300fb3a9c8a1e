import type { Clock } from '../lib/index.ts';

/**
 * Lifecycle events: what happened to which object, when, and who saw it. Every event is stamped on
 * the run's monotonic clock (lib/clock), the same clock the load timeline uses.
 */
export type LifecycleEventKind =
  | 'rollout-started'
  | 'rollout-status-complete'
  | 'rollout-old-pods-gone'
  | 'pod-created'
  | 'container-started'
  | 'pod-ready'
  | 'pod-not-ready'
  | 'pod-deleting'
  | 'prestop-started'
  | 'sigterm'
  | 'sigkill'
  | 'container-exited'
  | 'pod-terminal'
  | 'del-workload'
  /** The pod's sandbox is gone (CNI DEL): its IP answers nothing from now on. */
  | 'sandbox-removed'
  | 'pod-removed'
  | 'add-workload'
  | 'workload-unhealthy-pushed'
  | 'workload-removed-pushed'
  /**
   * kind: a ztunnel received a removal of workloads over xDS (its own log line; object: the ztunnel
   * pod, detail: how many, and which where the line names them).
   */
  | 'address-removal-received'
  | 'drain-deadline'
  /** kind: an EndpointSlice changed a pod's conditions (detail: ready/serving/terminating). */
  | 'endpoint-updated'
  | 'endpoint-removed'
  | 'push'
  /** A node marked unschedulable (`kubectl cordon`) before it is drained, and marked back after. */
  | 'node-cordoned'
  | 'node-uncordoned'
  /** A proxy refused the control plane's configuration (xDS NACK; detail: Envoy's reason). The run fails. */
  | 'xds-nack';

/** A pod going away, from its deletion to its removal: what a failure can be blamed on. */
export const POD_GONE_KINDS: ReadonlySet<string> = new Set<LifecycleEventKind>([
  'pod-deleting',
  'prestop-started',
  'sigterm',
  'sigkill',
  'container-exited',
  'pod-terminal',
  'del-workload',
  'pod-removed',
]);

export type EventSource =
  'api-server' | 'controller' | 'kubelet' | 'node-agent' | 'control-plane' | 'container-log' | 'harness';

export interface LifecycleEvent {
  atMs: number;
  kind: LifecycleEventKind;
  source: EventSource;
  /** `namespace/name` of the object (pod, Deployment, DaemonSet), or `control-plane`. */
  object: string;
  node?: string;
  detail?: string;
}

export type EventListener = (event: LifecycleEvent) => void;

export interface EventLog {
  emit(event: LifecycleEvent): void;
  /** Subscribes; returns the unsubscribe function. */
  on(listener: EventListener): () => void;
  all(): readonly LifecycleEvent[];
}

export function createEventLog(): EventLog {
  const events: LifecycleEvent[] = [];
  const listeners = new Set<EventListener>();
  return {
    emit(event) {
      events.push(event);
      for (const listener of listeners) listener(event);
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    all: () => events,
  };
}

/**
 * How every backend names a workload in its events: `deployment/default/httpbin`,
 * `daemonset/istio-system/ztunnel` (kubectl's kind/name, with the namespace); pods are `namespace/name`.
 */
export function workloadKey(ref: { kind: string; namespace: string; name: string }): string {
  return `${ref.kind.toLowerCase()}/${ref.namespace}/${ref.name}`;
}

export interface EmitOptions {
  detail?: string;
  node?: string;
  /** Who saw it, when not the emitter's own source. */
  source?: EventSource;
  /** When it happened on the run clock, when not now (a log line's own time). */
  atMs?: number;
}

export type Emitter = (kind: LifecycleEventKind, object: string, options?: EmitOptions) => void;

/** A component's events, stamped now on the run clock, from its own source unless a call names another. */
export function createEmitter(events: EventLog, clock: Clock, source: EventSource): Emitter {
  return (kind, object, options = {}) => {
    events.emit({
      atMs: options.atMs ?? clock.now(),
      kind,
      source: options.source ?? source,
      object,
      ...(options.node ? { node: options.node } : {}),
      ...(options.detail ? { detail: options.detail } : {}),
    });
  };
}
