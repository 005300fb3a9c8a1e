import type { RolloutRecord } from './cluster-state.ts';
import type { ControllerContext } from './controller-context.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

export interface RolloutProgress {
  rollout: RolloutRecord | undefined;
  /** The workload's key (events.ts workloadKey). */
  key: string;
  /** What `kubectl rollout status` would say (rollout-status.ts). */
  rolledOut: boolean;
  /** Pods of an older template still present, terminating ones included. */
  oldLeft: number;
}

/** A rollout's two moments, each stamped once: its status complete, then its old pods gone. */
export function trackRollout(ctx: ControllerContext, progress: RolloutProgress): void {
  const { rollout, key, rolledOut, oldLeft } = progress;
  if (!rollout) return;
  if (rolledOut && rollout.statusCompleteAtMs === undefined) {
    rollout.statusCompleteAtMs = ctx.clock.now();
    ctx.emit('rollout-status-complete', key, {
      detail: `old pods still present: ${String(oldLeft)}`,
      source: 'controller',
    });
  }
  if (rollout.statusCompleteAtMs !== undefined && oldLeft === 0 && rollout.oldPodsGoneAtMs === undefined) {
    rollout.oldPodsGoneAtMs = ctx.clock.now();
    ctx.emit('rollout-old-pods-gone', key, { source: 'controller' });
  }
}
