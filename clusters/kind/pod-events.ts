import type { V1EndpointSlice, V1Pod } from '@kubernetes/client-node';
import type { LifecycleEventKind } from '../events.ts';
import { isPodReady } from './pod-info.ts';

export interface ObservedChange {
  kind: LifecycleEventKind;
  /** What the API server recorded, when it says (deletionTimestamp, container finishedAt, ...). */
  detail?: string;
}

const exitedContainers = (pod: V1Pod | undefined): Map<string, string> =>
  new Map(
    (pod?.status?.containerStatuses ?? []).flatMap((s) =>
      s.state?.terminated
        ? [
            [
              s.name,
              `exit ${String(s.state.terminated.exitCode)} at ${String(s.state.terminated.finishedAt ?? '?')}`,
            ],
          ]
        : [],
    ),
  );
const startedContainers = (pod: V1Pod | undefined): Set<string> =>
  new Set((pod?.status?.containerStatuses ?? []).filter((s) => s.state?.running).map((s) => s.name));
const isTerminal = (pod: V1Pod | undefined): boolean =>
  pod?.status?.phase === 'Succeeded' || pod?.status?.phase === 'Failed';

/**
 * The lifecycle events one watch update of a pod shows, by comparing it with the previous version:
 * the same names the local backend emits, so reports and attribution read the same on both backends.
 * Deletion's t0 is deletionTimestamp minus deletionGracePeriodSeconds (the API server sets the
 * timestamp to the end of the grace period).
 */
export function podChanges(before: V1Pod | undefined, after: V1Pod | undefined): ObservedChange[] {
  if (!after) return before ? [{ kind: 'pod-removed' }] : [];
  const changes: ObservedChange[] = [];
  if (!before)
    changes.push({ kind: 'pod-created', detail: `node ${after.spec?.nodeName ?? '(unscheduled)'}` });
  const wasStarted = startedContainers(before);
  for (const name of startedContainers(after))
    if (!wasStarted.has(name)) changes.push({ kind: 'container-started', detail: name });
  // Ready with the pod's IP as the API has it: what maps a gateway's upstream to its pod where no
  // node agent of ours logs enrolments (an Istio control plane's istio-cni).
  const ip = after.status?.podIP;
  if (isPodReady(after) !== isPodReady(before) && (before || isPodReady(after)))
    changes.push(
      isPodReady(after)
        ? { kind: 'pod-ready', ...(ip ? { detail: `${ip} ready` } : {}) }
        : { kind: 'pod-not-ready' },
    );
  if (after.metadata?.deletionTimestamp && !before?.metadata?.deletionTimestamp) {
    const graceS = after.metadata.deletionGracePeriodSeconds ?? 0;
    const deadline = new Date(after.metadata.deletionTimestamp);
    const t0 = new Date(deadline.getTime() - graceS * 1000);
    changes.push({
      kind: 'pod-deleting',
      detail: `deletion at ${t0.toISOString()}, grace ${String(graceS)} s`,
    });
  }
  const wasExited = exitedContainers(before);
  for (const [name, how] of exitedContainers(after))
    if (!wasExited.has(name)) changes.push({ kind: 'container-exited', detail: `${name} ${how}` });
  if (isTerminal(after) && !isTerminal(before))
    changes.push({ kind: 'pod-terminal', detail: after.status?.phase ?? '' });
  return changes;
}

/** Per pod, the endpoint's conditions in an EndpointSlice ("ready/serving/terminating"). */
export function endpointConditions(slice: V1EndpointSlice | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of slice?.endpoints ?? []) {
    const pod =
      e.targetRef?.kind === 'Pod' ? `${e.targetRef.namespace ?? ''}/${e.targetRef.name ?? ''}` : undefined;
    if (!pod) continue;
    const c = e.conditions ?? {};
    out.set(
      pod,
      `ready=${String(c.ready ?? false)} serving=${String(c.serving ?? false)} terminating=${String(c.terminating ?? false)}`,
    );
  }
  return out;
}

/** Endpoint changes between two versions of a slice, per pod. */
export function endpointChanges(
  before: V1EndpointSlice | undefined,
  after: V1EndpointSlice | undefined,
): { pod: string; change: ObservedChange }[] {
  const was = endpointConditions(before);
  const now = endpointConditions(after);
  const out: { pod: string; change: ObservedChange }[] = [];
  for (const [pod, conditions] of now)
    if (was.get(pod) !== conditions)
      out.push({ pod, change: { kind: 'endpoint-updated', detail: conditions } });
  for (const pod of was.keys()) if (!now.has(pod)) out.push({ pod, change: { kind: 'endpoint-removed' } });
  return out;
}

export interface ContainerRestart {
  container: string;
  restartCount: number;
  /** How the instance before ended, as the kubelet recorded it (lastState.terminated). */
  lastExit: string;
}

/**
 * The containers whose restartCount rose between two versions of a pod (a pod first seen with
 * restarts counts them all: they happened before the watch saw it).
 */
export function containerRestarts(before: V1Pod | undefined, after: V1Pod | undefined): ContainerRestart[] {
  const was = new Map((before?.status?.containerStatuses ?? []).map((s) => [s.name, s.restartCount]));
  return (after?.status?.containerStatuses ?? [])
    .filter((s) => s.restartCount > (was.get(s.name) ?? 0))
    .map((s) => {
      const t = s.lastState?.terminated;
      return {
        container: s.name,
        restartCount: s.restartCount,
        lastExit: t
          ? `last exit ${String(t.exitCode)}${t.reason ? ` (${t.reason})` : ''} at ${isoOf(t.finishedAt)}`
          : 'last exit not reported',
      };
    });
}

/** A timestamp as ISO text: a Date from a typed list, a string from a watch event. */
function isoOf(at: Date | string | undefined): string {
  const date = at === undefined ? undefined : new Date(at);
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : '?';
}
