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
 * The run's timeline as vega-lite: requests/s (OK) on top, failures/s by class below, both with
 * the drain windows shaded and lifecycle events as vertical rules, on one time axis (seconds from
 * load start, the clock the tally and the events share).
 */
export function buildTimelineSpec(options: {
  timeline: Row[];
  events: Row[];
  bucketMs: number;
  title: string;
}): TopLevelSpec {
  const perS = 1000 / options.bucketMs;
  const endS = Math.max(1, ...options.timeline.map((r) => Number(r['t_s']) + options.bucketMs / 1000));
  const ok = options.timeline.map((r) => ({ t_s: Number(r['t_s']), rate: Number(r['ok']) * perS }));
  const failures = options.timeline.flatMap((r) =>
    OUTCOME_CLASSES.filter((c) => c !== 'ok' && Number(r[c]) > 0).map((c) => ({
      t_s: Number(r['t_s']),
      t_end_s: Number(r['t_s']) + options.bucketMs / 1000,
      class: c,
      rate: Number(r[c]) * perS,
    })),
  );
  const windows = drainWindows(options.events, endS);
  const marks = options.events
    .filter((e) => MARKED.has(String(e['kind'])) && Number(e['t_s']) >= 0 && Number(e['t_s']) <= endS)
    .map((e) => ({ t_s: Number(e['t_s']), kind: String(e['kind']), object: String(e['object']) }));
  const x = {
    field: 't_s',
    type: 'quantitative' as const,
    title: 'seconds from load start',
    scale: { domain: [0, endS] },
  };
  const shade = {
    data: { values: windows },
    mark: { type: 'rect' as const, color: DRAIN_COLOUR, opacity: 0.5 },
    encoding: { x: { ...x, field: 'start_s' }, x2: { field: 'end_s' }, tooltip: [{ field: 'object' }] },
  };
  const rules = {
    data: { values: marks },
    mark: { type: 'rule' as const, color: EVENT_COLOUR, strokeDash: [3, 3], strokeWidth: 1 },
    encoding: { x, tooltip: [{ field: 'kind' }, { field: 'object' }, { field: 't_s' }] },
  };
  const classes = Object.keys(FAILURE_COLOURS);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: options.title,
    config: { font: 'DejaVu Sans, Arial, sans-serif', view: { stroke: '#ccc' } },
    vconcat: [
      {
        width: 760,
        height: 180,
        layer: [
          shade,
          {
            data: { values: ok },
            mark: { type: 'line', color: OK_COLOUR, interpolate: 'step-after' },
            encoding: { x, y: { field: 'rate', type: 'quantitative', title: 'OK requests/s' } },
          },
          rules,
        ],
      },
      {
        width: 760,
        height: 180,
        layer: [
          shade,
          {
            data: { values: failures },
            mark: { type: 'rect' },
            encoding: {
              x,
              x2: { field: 't_end_s' },
              y: {
                aggregate: 'sum',
                field: 'rate',
                type: 'quantitative',
                title: 'failures/s',
                stack: 'zero',
              },
              color: {
                field: 'class',
                type: 'nominal',
                title: 'failure class',
                scale: { domain: classes, range: classes.map((c) => FAILURE_COLOURS[c] ?? '#000') },
              },
              tooltip: [{ field: 'class' }, { field: 't_s' }, { field: 'rate', aggregate: 'sum' }],
            },
          },
          rules,
        ],
      },
    ],
  };
}
