import type { TopLevelSpec } from 'vega-lite';
import { FINE_BUCKET_MS, OUTCOME_CLASSES } from '../tally/index.ts';
import { EVENT_COLOUR, eventLabels, FAILURE_COLOURS, OK_COLOUR } from './timeline-spec.ts';
import type { TimeAxis } from './timeline-spec.ts';

type Row = Record<string, string | number>;

const HEIGHT_PX = 200;
/** What a terminating pod's zoom names. */
const ZOOM_KINDS = new Set([
  'pod-deleting',
  'sigterm',
  'sigkill',
  'container-exited',
  'del-workload',
  'sandbox-removed',
  'workload-unhealthy-pushed',
  'workload-removed-pushed',
]);

/** Requests per fine bucket by outcome class: the stacked bars. */
function barsOf(rows: Row[]) {
  return rows.flatMap((r) =>
    OUTCOME_CLASSES.filter((c) => Number(r[c]) > 0).map((c) => ({
      t_s: Number(r['t_s']),
      t_end_s: Number(r['t_s']) + FINE_BUCKET_MS / 1000,
      class: c,
      n: Number(r[c]),
    })),
  );
}

/** The cause's own story in [from, to], named by kind alone, and any ztunnel deadline there. */
function marksOf(events: Row[], causeObject: string, from: number, to: number) {
  return events
    .map((e) => ({ t_s: Number(e['t_s']), kind: String(e['kind']), object: String(e['object']) }))
    .filter(
      (e) =>
        e.t_s >= from &&
        e.t_s <= to &&
        ((e.object === causeObject && ZOOM_KINDS.has(e.kind)) || e.kind === 'drain-deadline'),
    )
    .map((e) => ({
      ...e,
      label: e.object === causeObject ? e.kind : `${e.kind} ${e.object.split('/').pop() ?? ''}`,
    }));
}

/**
 * One burst up close: a second either side of it in 10 ms buckets by request start, requests per
 * bucket (OK as a line, failures stacked by class) with every lifecycle event in the window drawn
 * and named. A 300 ms burst at 50 RPS is 15 requests: this is where its edges show.
 */
export function buildZoomSpec(options: {
  burst: Row;
  number: number;
  rows: Row[];
  events: Row[];
}): TopLevelSpec {
  const times = options.rows.map((r) => Number(r['t_s']));
  const from = Math.min(...times);
  const to = Math.max(...times) + FINE_BUCKET_MS / 1000;
  const x: TimeAxis = {
    field: 't_s',
    type: 'quantitative',
    title: 'seconds from load start',
    scale: { domain: [from, to] },
  };
  const marks = marksOf(options.events, String(options.burst['cause_object']), from, to);
  const classes = ['ok', ...Object.keys(FAILURE_COLOURS)];
  const b = options.burst;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `burst ${String(options.number)}: ${String(b['failures'])} failed, ${String(b['cause_kind'])} ${String(b['cause_object'])}`,
    config: { font: 'DejaVu Sans, Arial, sans-serif', view: { stroke: '#ccc' } },
    width: 760,
    height: HEIGHT_PX,
    layer: [
      {
        data: { values: barsOf(options.rows) },
        mark: { type: 'rect' },
        encoding: {
          x,
          x2: { field: 't_end_s' },
          y: {
            aggregate: 'sum',
            field: 'n',
            type: 'quantitative',
            stack: 'zero',
            title: `requests per ${String(FINE_BUCKET_MS)} ms, by start`,
          },
          color: {
            field: 'class',
            type: 'nominal',
            title: 'outcome',
            scale: { domain: classes, range: [OK_COLOUR, ...Object.values(FAILURE_COLOURS)] },
          },
        },
      },
      {
        data: { values: marks },
        mark: { type: 'rule', color: EVENT_COLOUR, strokeDash: [3, 3], strokeWidth: 1 },
        encoding: { x },
      },
      eventLabels(marks, x, HEIGHT_PX),
    ],
  };
}
