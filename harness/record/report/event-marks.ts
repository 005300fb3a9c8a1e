import type { FaultStart } from './fault-start.ts';
import type { LaneLabel, Tick } from './event-lane.ts';

type Row = Record<string, string | number>;

/**
 * Which names get a place first when they crowd: the fault, then what starts and ends a drain, then
 * the rest of a pod's story.
 */
const LABEL_PRIORITY = [
  'sigterm',
  'drain-deadline',
  'sigkill',
  'pod-deleting',
  'container-exited',
  'del-workload',
  'sandbox-removed',
  'workload-unhealthy-pushed',
  'workload-removed-pushed',
  'pod-removed',
];

/** The events of `kinds` in [from, to] as ticks, and the fault's start (if inside) as one more. */
export function ticksOf(options: {
  events: readonly Row[];
  kinds: ReadonlySet<string>;
  fault: FaultStart | undefined;
  from: number;
  to: number;
}): Tick[] {
  const { fault, from, to } = options;
  const ticks: Tick[] = options.events
    .map((e) => ({ t_s: Number(e['t_s']), kind: String(e['kind']), object: String(e['object']) }))
    .filter((e) => options.kinds.has(e.kind) && e.t_s >= from && e.t_s <= to);
  if (fault && fault.t_s >= from && fault.t_s <= to)
    ticks.push({ t_s: fault.t_s, kind: 'fault', object: fault.label, isFault: true });
  return ticks.sort((a, b) => a.t_s - b.t_s);
}

/**
 * Names for the ticks whose kind is in `named` (the fault's always): `sigterm ztunnel-x7k2p`, or the
 * kind alone where `bare(tick)` says the object goes without saying (a zoom on that object).
 */
export function labelsOf(
  ticks: readonly Tick[],
  named: ReadonlySet<string>,
  bare: (tick: Tick) => boolean = () => false,
): LaneLabel[] {
  return ticks
    .filter((t) => t.isFault === true || named.has(t.kind))
    .map((t) => {
      const rank = LABEL_PRIORITY.indexOf(t.kind);
      const name = t.object.split('/').pop() ?? t.object;
      return {
        t_s: t.t_s,
        label: t.isFault === true ? t.object : bare(t) ? t.kind : `${t.kind} ${name}`,
        priority: t.isFault === true ? -1 : rank === -1 ? LABEL_PRIORITY.length : rank,
        isFault: t.isFault === true,
      };
    });
}
