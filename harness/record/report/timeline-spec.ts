import type { TopLevelSpec } from 'vega-lite';
import { colourScaleOf, DRAIN_COLOUR, FAILURE_CLASSES, FAILURE_COLOURS, OK_COLOUR } from './colours.ts';
import { cpuByGroup, cpuLayer } from './cpu-panel.ts';
import { buildEventLane, buildRuleLayers } from './event-lane.ts';
import type { Tick } from './event-lane.ts';
import { labelsOf, ticksOf } from './event-marks.ts';
import type { FaultStart } from './fault-start.ts';
import { stackBuckets } from './stack-buckets.ts';
import type { Layer, LayerPanel, TimeAxis } from './vega-types.ts';

type Row = Record<string, string | number>;

/** Event kinds worth a rule (the rest are in events.csv). */
const MARKED = new Set([
  'pod-deleting',
  'sigterm',
  'sigkill',
  'container-exited',
  'workload-unhealthy-pushed',
  'pod-removed',
  'drain-deadline',
]);
/** Of those, the ones named in the overview: a drain's start and end (the zooms name the rest). */
const OVERVIEW_LABELS = new Set(['sigterm', 'sigkill', 'drain-deadline']);
const DRAIN_START = new Set(['pod-deleting', 'sigterm']);
const DRAIN_END = new Set(['container-exited', 'pod-terminal', 'pod-removed']);

export interface DrainWindow {
  object: string;
  start_s: number;
  end_s: number;
}

/** From deletion (or SIGTERM) to the containers' exit, per terminating pod: the shaded windows. */
export function drainWindows(events: Row[], endS: number): DrainWindow[] {
  const byObject = new Map<string, { start?: number; end?: number }>();
  for (const e of events) {
    const t = Number(e['t_s']);
    const kind = String(e['kind']);
    const object = String(e['object']);
    const w = byObject.get(object) ?? {};
    if (DRAIN_START.has(kind) && (w.start === undefined || t < w.start)) w.start = t;
    if (DRAIN_END.has(kind) && (w.end === undefined || t > w.end)) w.end = t;
    byObject.set(object, w);
  }
  return [...byObject]
    .filter(([, w]) => w.start !== undefined)
    .map(([object, w]) => ({ object, start_s: w.start ?? 0, end_s: Math.min(w.end ?? endS, endS) }))
    .filter((w) => w.end_s > w.start_s);
}

/**
 * The plot area's width; with the axis and a legend the figure stays under ~900 px. Axis titles are
 * kept to short lines: vega lays panels out by its estimate of their text (0.8 em a character), so a
 * y title longer than its panel pushes the next panel down.
 */
export const PANEL_WIDTH = 680;

/** What every panel of a timeline shares: the time axis, the shaded drain windows, the rules. */
interface Frame {
  x: TimeAxis;
  ticks: Tick[];
  shade: Layer;
  rules: Layer[];
}

function frameOf(events: Row[], endS: number, fault: FaultStart | undefined): Frame {
  const x: TimeAxis = {
    field: 't_s',
    type: 'quantitative',
    title: 'seconds from load start',
    scale: { domain: [0, endS] },
  };
  const ticks = ticksOf({ events, kinds: MARKED, fault, from: 0, to: endS });
  return {
    x,
    ticks,
    shade: {
      data: { values: drainWindows(events, endS) },
      mark: { type: 'rect', color: DRAIN_COLOUR, opacity: 0.5 },
      encoding: { x: { ...x, field: 'start_s' }, x2: { field: 'end_s' }, tooltip: [{ field: 'object' }] },
    },
    rules: buildRuleLayers(ticks, x),
  };
}

/** A panel: the drain windows, `layer` over them, the rules on top. */
const panel = (frame: Frame, height: number, layer: Layer): LayerPanel => ({
  width: PANEL_WIDTH,
  height,
  layer: [frame.shade, layer, ...frame.rules],
});

/** Failures per second by class, stacked, one bar per bucket; the legend names the classes seen. */
function failurePanel(frame: Frame, rows: Row[], options: { bucketMs: number; title: string[] }) {
  const values = stackBuckets(rows, {
    classes: FAILURE_CLASSES,
    bucketS: options.bucketMs / 1000,
    perBucket: 1000 / options.bucketMs,
  });
  const scale = colourScaleOf(
    values.map((v) => v.class),
    { order: FAILURE_CLASSES, colours: FAILURE_COLOURS, fallback: '#000000' },
  );
  return panel(frame, 140, {
    data: { values },
    mark: { type: 'rect' },
    encoding: {
      x: frame.x,
      x2: { field: 't_end_s' },
      y: { field: 'y1', type: 'quantitative', title: options.title, scale: { zero: true } },
      y2: { field: 'y0' },
      // No failures, no legend (vega-lite would draw its title over an empty domain).
      ...(scale.domain.length > 0
        ? { color: { field: 'class', type: 'nominal' as const, title: 'failure class', scale } }
        : {}),
      tooltip: [{ field: 'class' }, { field: 't_s' }, { field: 'value', title: 'per second' }],
    },
  });
}

/** p50 and p99 per bucket, on a symlog scale. */
function latencyLayer(x: TimeAxis, values: Record<string, unknown>[]): Layer {
  return {
    data: { values },
    mark: { type: 'line', interpolate: 'step-after' },
    encoding: {
      x,
      y: { field: 'ms', type: 'quantitative', title: 'latency, ms', scale: { type: 'symlog' } },
      strokeDash: { field: 'quantile', type: 'nominal', title: 'latency' },
      color: { value: '#444444' },
    },
  };
}

/**
 * The run's timeline as vega-lite: the fault and the drains' landmarks named in a strip on top,
 * requests/s (OK), failures/s by class (by start and by completion), latency and CPU below, all with
 * the drain windows shaded and the events as vertical rules, on one time axis (seconds from load
 * start, the clock the tally and the events share).
 */
export function buildTimelineSpec(options: {
  timeline: Row[];
  events: Row[];
  /** The fault's start (fault-start.ts): a solid rule, named. */
  fault?: FaultStart;
  /** cpu.csv rows: a panel with CPU per component group when there are any. */
  cpu?: Row[];
  /** timeline-by-end.csv rows: failures by when the client saw them. */
  byEnd?: Row[];
  /** latency.csv rows: p50 / p99 per bucket. */
  latency?: Row[];
  bucketMs: number;
  title: string;
}): TopLevelSpec {
  const { bucketMs } = options;
  const endS = Math.max(1, ...options.timeline.map((r) => Number(r['t_s']) + bucketMs / 1000));
  const ok = options.timeline.map((r) => ({
    t_s: Number(r['t_s']),
    rate: (Number(r['ok']) * 1000) / bucketMs,
  }));
  const latency = (options.latency ?? []).flatMap((r) => [
    { t_s: Number(r['t_s']), quantile: 'p50', ms: Number(r['p50_ms']) },
    { t_s: Number(r['t_s']), quantile: 'p99', ms: Number(r['p99_ms']) },
  ]);
  const cpu = cpuByGroup(options.cpu ?? []);
  const frame = frameOf(options.events, endS, options.fault);
  const lane = buildEventLane({
    labels: labelsOf(frame.ticks, OVERVIEW_LABELS),
    ticks: frame.ticks,
    x: frame.x,
    widthPx: PANEL_WIDTH,
    maxRows: 5,
  });
  const okLayer: Layer = {
    data: { values: ok },
    mark: { type: 'line', color: OK_COLOUR, interpolate: 'step-after' },
    encoding: { x: frame.x, y: { field: 'rate', type: 'quantitative', title: 'OK requests/s' } },
  };
  // By completion only when it has failures to show (by start is drawn even when empty: the
  // empty panel is the run's result).
  const byEnd = options.byEnd ?? [];
  const failsByEnd = byEnd.some((r) => FAILURE_CLASSES.some((c) => Number(r[c] ?? 0) > 0));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: options.title,
    config: { font: 'DejaVu Sans, Arial, sans-serif', view: { stroke: '#ccc' } },
    vconcat: [
      ...(lane ? [lane] : []),
      panel(frame, 200, okLayer),
      failurePanel(frame, options.timeline, { bucketMs, title: ['failures/s,', 'by request start'] }),
      ...(failsByEnd
        ? [failurePanel(frame, byEnd, { bucketMs, title: ['failures/s,', 'by completion'] })]
        : []),
      ...(latency.length > 0 ? [panel(frame, 120, latencyLayer(frame.x, latency))] : []),
      ...(cpu.length > 0 ? [panel(frame, 140, cpuLayer(frame.x, cpu))] : []),
    ],
    spacing: 12,
    resolve: { scale: { color: 'independent', strokeDash: 'independent' } },
  };
}
