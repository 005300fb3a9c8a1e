import type { V1Container } from '@kubernetes/client-node';
import { nameComponent } from '../../lib/index.ts';
import { createEmitter } from '../events.ts';
import type { EventSource, LifecycleEventKind } from '../events.ts';
import type { PodNetns } from '../netns/network-world.ts';
import type { PodRecord } from './cluster-state.ts';
import { podKey } from './cluster-state.ts';
import type { ContainerProcess } from './container-process.ts';
import type { KubeletOptions } from './kubelet-options.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

export interface RunningContainer {
  spec: V1Container;
  process: ContainerProcess;
  /** Its process's started line, and for a program that logs it before listening, its port open. */
  started: Promise<void>;
  isReady: boolean;
}

export interface PodRuntime {
  containers: RunningContainer[];
  probes: AbortController;
  /** The pod's volumes' directories, once mounted (before any container starts). */
  volumeDirs: ReadonlyMap<string, string>;
  started: Promise<void>;
  terminating?: Promise<void>;
  /** The pod's own network namespace, for a pod that asked for one (pod.netns). */
  netns?: PodNetns;
}

/** An event of one of this node's pods, seen by the kubelet unless `source` says who else. */
export type PodEventEmitter = (
  kind: LifecycleEventKind,
  pod: PodRecord,
  detail?: string,
  source?: EventSource,
  atMs?: number,
) => void;

/** What one node's kubelet holds while it runs, shared by its parts (start, probes, stop, teardown). */
export interface KubeletContext {
  options: KubeletOptions;
  /** The runtime of each pod started on this node and not yet removed, by pod uid. */
  runtimes: Map<string, PodRuntime>;
  /** The last output of the containers of pods removed from this node, by `namespace/name`. */
  retiredLogs: Map<string, string[]>;
  /** Address holders, prepared or holding: all released at teardown. */
  holders: Set<{ release(): void }>;
  lifecycle: { destroyed: boolean };
  emit: PodEventEmitter;
}

export function createKubeletContext(options: KubeletOptions): KubeletContext {
  const { clock, events, node } = options;
  const emitter = createEmitter(events, clock, 'kubelet');
  const emit: PodEventEmitter = (kind, pod, detail, source, atMs) => {
    emitter(kind, podKey(pod), {
      node: node.name,
      ...(detail === undefined ? {} : { detail }),
      ...(source ? { source } : {}),
      ...(atMs === undefined ? {} : { atMs }),
    });
  };
  return {
    options,
    runtimes: new Map(),
    retiredLogs: new Map(),
    holders: new Set(),
    lifecycle: { destroyed: false },
    emit,
  };
}

// A function, so the check after an await is not narrowed away: destroy() may run meanwhile.
export const isDestroyed = (ctx: KubeletContext): boolean => ctx.lifecycle.destroyed;
