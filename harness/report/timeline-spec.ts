import type { TopLevelSpec } from 'vega-lite';
import { OUTCOME_CLASSES } from '../tally/index.ts';

type Row = Record<string, string | number>;

/** Failure classes and their colours (fixed, so plots of different runs read the same). */
export const FAILURE_COLOURS: Record<string, string> = {
  http_503_uf: '#d62728',
  http_503_uc: '#ff7f0e',
  http_503_urx: '#8c564b',
  http_503_uh: '#e377c2',
  http_503: '#bcbd22',
  other_5xx: '#9467bd',
  refused: '#17becf',
  reset: '#1f77b4',
  eof: '#7f7f7f',
  timeout: '#2ca02c',
  h2: '#aec7e8',
  other: '#393b79',
};
export const OK_COLOUR = '#4c78a8';
export const DRAIN_COLOUR = '#fdd0a2';
export const EVENT_COLOUR = '#555555';
/** Component groups of the CPU panel and their colours. */
export const CPU_COLOURS: Record<string, string> = {
  k6: '#7f7f7f',
  harness: '#000000',
  gateway: '#1f77b4',
  ztunnel: '#d62728',
  httpbin: '#2ca02c',
};

/** Per sample time and component group: the summed CPU of the group's components. */
export function cpuByGroup(cpu: Row[]): { t_s: number; group: string; cpu_pct: number }[] {
  const sums = new Map<string, { t_s: number; group: string; cpu_pct: number }>();
  for (const r of cpu) {
    const key = `${String(r['t_s'])}|${String(r['group'])}`;
    const entry = sums.get(key) ?? { t_s: Number(r['t_s']), group: String(r['group']), cpu_pct: 0 };
    entry.cpu_pct += Number(r['cpu_pct']);
    sums.set(key, entry);
  }
  return [...sums.values()];
}

/** Event kinds worth a marker (the rest are in events.csv). */
const MARKED = new Set([
  'pod-deleting',
  'sigterm',
  'sigkill',
  'container-exited',
  'workload-unhealthy-pushed',
  'pod-removed',
  'drain-deadline',
]);
const DRAIN_START = new Set(['pod-deleting', 'sigterm']);
const OVERVIEW_LABELS = new Set(['drain-deadline']);
const DRAIN_END = new Set(['container-exited', 'pod-terminal', 'pod-removed']);

/** `sigterm httpbin-a` for an event: the kind and the object's name without its namespace. */
function labelOf(e: { kind: string; object: string }): string {
  return `${e.kind} ${e.object.split('/').pop() ?? e.object}`;
}

/**
 * The events written beside their rules (a static SVG has no hover): rotated labels at the top of the
 * panel, staggered in three rows so neighbours do not overprint.
 */
export function eventLabels(
  marks: { t_s: number; kind: string; object: string; label?: string }[],
  x: TimeAxis,
  heightPx: number,
) {
  // Pixel positions (scale null: the value is the position): from the bottom of the panel upwards,
  // alternately lifted so neighbours do not overprint.
  const values = [...marks]
    .sort((a, b) => a.t_s - b.t_s)
    .map((m, i) => ({ ...m, label: m.label ?? labelOf(m), ypx: heightPx - 4 - (i % 2) * 12 }));
  return {
    data: { values },
    mark: {
      type: 'text' as const,
      angle: 270,
      align: 'left' as const,
      baseline: 'bottom' as const,
      dx: 0,
      dy: -2,
      fontSize: 9,
      color: EVENT_COLOUR,
    },
    encoding: {
      x,
      y: { field: 'ypx', type: 'quantitative' as const, scale: null },
      text: { field: 'label' },
    },
  };
}

/** The shared x encoding: seconds from load start. */
export interface TimeAxis {
  field: string;
  type: 'quantitative';
  title: string;
  scale: { domain: number[] };
}

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

const PANEL_WIDTH = 760;

/** What every panel of a timeline shares: the time axis, the shaded drain windows, the event rules. */
function frameOf(events: Row[], endS: number) {
  const x: TimeAxis = {
    field: 't_s',
    type: 'quantitative',
    title: 'seconds from load start',
    scale: { domain: [0, endS] },
  };
  const marks = events
    .filter((e) => MARKED.has(String(e['kind'])) && Number(e['t_s']) >= 0 && Number(e['t_s']) <= endS)
    .map((e) => ({ t_s: Number(e['t_s']), kind: String(e['kind']), object: String(e['object']) }));
  const frame: { x: TimeAxis; marks: typeof marks; shade: Layer; rules: Layer } = {
    x,
    marks,
    shade: {
      data: { values: drainWindows(events, endS) },
      mark: { type: 'rect' as const, color: DRAIN_COLOUR, opacity: 0.5 },
      encoding: { x: { ...x, field: 'start_s' }, x2: { field: 'end_s' }, tooltip: [{ field: 'object' }] },
    },
    rules: {
      data: { values: marks },
      mark: { type: 'rule' as const, color: EVENT_COLOUR, strokeDash: [3, 3], strokeWidth: 1 },
      encoding: { x, tooltip: [{ field: 'kind' }, { field: 'object' }, { field: 't_s' }] },
    },
  };
  return frame;
}

type Frame = ReturnType<typeof frameOf>;
/** vega-lite's types for a vconcat's layered panel and its layers (vega-lite exports only the top). */
type LayerPanel = Extract<Extract<TopLevelSpec, { vconcat: unknown }>['vconcat'][number], { layer: unknown }>;
type Layer = LayerPanel['layer'][number];

/** A panel: the drain windows, `layer` over them, the event rules on top (then `extra` layers). */
const panel = (frame: Frame, height: number, layer: Layer, extra: Layer[] = []): LayerPanel => ({
  width: PANEL_WIDTH,
  height,
  layer: [frame.shade, layer, frame.rules, ...extra],
});

/** Failures per second by class, stacked, one bar per bucket. */
function failurePanel(frame: Frame, values: Record<string, unknown>[], title: string) {
  const classes = Object.keys(FAILURE_COLOURS);
  return panel(frame, 140, {
    data: { values },
    mark: { type: 'rect' as const },
    encoding: {
      x: frame.x,
      x2: { field: 't_end_s' },
      y: {
        aggregate: 'sum' as const,
        field: 'rate',
        type: 'quantitative' as const,
        title,
        stack: 'zero' as const,
      },
      color: {
        field: 'class',
        type: 'nominal' as const,
        title: 'failure class',
        scale: { domain: classes, range: classes.map((c) => FAILURE_COLOURS[c] ?? '#000') },
      },
      tooltip: [{ field: 'class' }, { field: 't_s' }, { field: 'rate', aggregate: 'sum' as const }],
    },
  });
}

/** p50 and p99 per bucket, on a symlog scale. */
function latencyPanel(frame: Frame, values: Record<string, unknown>[]) {
  return panel(frame, 120, {
    data: { values },
    mark: { type: 'line' as const, interpolate: 'step-after' as const },
    encoding: {
      x: frame.x,
      y: {
        field: 'ms',
        type: 'quantitative' as const,
        title: 'latency, ms',
        scale: { type: 'symlog' as const },
      },
      strokeDash: { field: 'quantile', type: 'nominal' as const, title: 'latency' },
      color: { value: '#444444' },
    },
  });
}

/** CPU per component group, % of one core. */
function cpuPanel(frame: Frame, values: ReturnType<typeof cpuByGroup>) {
  const groups = [...new Set([...Object.keys(CPU_COLOURS), ...values.map((c) => c.group)])];
  return panel(frame, 140, {
    data: { values },
    mark: { type: 'line' as const, interpolate: 'step-before' as const },
    encoding: {
      x: frame.x,
      y: { field: 'cpu_pct', type: 'quantitative' as const, title: 'CPU, % of one core' },
      color: {
        field: 'group',
        type: 'nominal' as const,
        title: 'component',
        scale: { domain: groups, range: groups.map((g) => CPU_COLOURS[g] ?? '#bcbd22') },
      },
      tooltip: [{ field: 'group' }, { field: 't_s' }, { field: 'cpu_pct' }],
    },
  });
}

/** Timeline rows as per-second rates: OK, and one entry per failure class and bucket. */
function ratesOf(rows: Row[], bucketMs: number) {
  const perS = 1000 / bucketMs;
  return {
    ok: rows.map((r) => ({ t_s: Number(r['t_s']), rate: Number(r['ok']) * perS })),
    failures: rows.flatMap((r) =>
      OUTCOME_CLASSES.filter((c) => c !== 'ok' && Number(r[c]) > 0).map((c) => ({
        t_s: Number(r['t_s']),
        t_end_s: Number(r['t_s']) + bucketMs / 1000,
        class: c,
        rate: Number(r[c]) * perS,
      })),
    ),
  };
}

/**
 * The run's timeline as vega-lite: requests/s (OK) on top, failures/s by class below, both with
 * the drain windows shaded and lifecycle events as vertical rules, on one time axis (seconds from
 * load start, the clock the tally and the events share).
 */
export function buildTimelineSpec(options: {
  timeline: Row[];
  events: Row[];
  /** cpu.csv rows: a panel with CPU per component group when there are any. */
  cpu?: Row[];
  /** timeline-by-end.csv rows: failures by when the client saw them. */
  byEnd?: Row[];
  /** latency.csv rows: p50 / p99 per bucket. */
  latency?: Row[];
  bucketMs: number;
  title: string;
}): TopLevelSpec {
  const endS = Math.max(1, ...options.timeline.map((r) => Number(r['t_s']) + options.bucketMs / 1000));
  const { ok, failures } = ratesOf(options.timeline, options.bucketMs);
  const failuresByEnd = ratesOf(options.byEnd ?? [], options.bucketMs).failures;
  const latency = (options.latency ?? []).flatMap((r) => [
    { t_s: Number(r['t_s']), quantile: 'p50', ms: Number(r['p50_ms']) },
    { t_s: Number(r['t_s']), quantile: 'p99', ms: Number(r['p99_ms']) },
  ]);
  const cpu = cpuByGroup(options.cpu ?? []);
  const frame = frameOf(options.events, endS);
  // The overview names only the run's landmarks; every event is named in the burst zooms.
  const labels = eventLabels(
    frame.marks.filter((m) => OVERVIEW_LABELS.has(m.kind)),
    frame.x,
    220,
  );
  const okLayer: Layer = {
    data: { values: ok },
    mark: { type: 'line', color: OK_COLOUR, interpolate: 'step-after' },
    encoding: { x: frame.x, y: { field: 'rate', type: 'quantitative', title: 'OK requests/s' } },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: options.title,
    config: { font: 'DejaVu Sans, Arial, sans-serif', view: { stroke: '#ccc' } },
    vconcat: [
      panel(frame, 220, okLayer, [labels]),
      failurePanel(frame, failures, 'failures/s, by request start'),
      ...(failuresByEnd.length > 0 ? [failurePanel(frame, failuresByEnd, 'failures/s, by completion')] : []),
      ...(latency.length > 0 ? [latencyPanel(frame, latency)] : []),
      ...(cpu.length > 0 ? [cpuPanel(frame, cpu)] : []),
    ],
    resolve: { scale: { color: 'independent' } },
  };
}
