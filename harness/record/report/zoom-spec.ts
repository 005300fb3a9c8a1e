import type { TopLevelSpec } from 'vega-lite';
import { FINE_BUCKET_MS } from '../../tally/index.ts';
import { colourScaleOf, FAILURE_CLASSES, FAILURE_COLOURS, OK_BAR_COLOUR } from './colours.ts';
import { buildEventLane, buildRuleLayers } from './event-lane.ts';
import { labelsOf, ticksOf } from './event-marks.ts';
import type { FaultStart } from './fault-start.ts';
import { stackBuckets } from './stack-buckets.ts';
import { PANEL_WIDTH } from './timeline-spec.ts';
import type { TimeAxis } from './vega-types.ts';

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
/** Failures at the bottom of each bar, OK on top: a single failure among many OKs still shows. */
const STACK_ORDER = [...FAILURE_CLASSES, 'ok'];

/** The cause's own story and any ztunnel's drain deadline: every one named. */
function storyOf(events: Row[], causeObject: string): Row[] {
  return events.filter((e) =>
    e['kind'] === 'drain-deadline' ? true : e['object'] === causeObject && ZOOM_KINDS.has(String(e['kind'])),
  );
}

/**
 * One burst up close: a second either side of it in 10 ms buckets by request start, requests per
 * bucket stacked by outcome (failures at the bottom, OK above them), with every lifecycle event of
 * the cause in the window drawn and named in a strip above. A 300 ms burst at 50 RPS is 15 requests:
 * this is where its edges show.
 */
export function buildZoomSpec(options: {
  burst: Row;
  number: number;
  rows: Row[];
  events: Row[];
  fault?: FaultStart;
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
  const b = options.burst;
  const cause = String(b['cause_object']);
  const kinds = new Set([...ZOOM_KINDS, 'drain-deadline']);
  const ticks = ticksOf({ events: storyOf(options.events, cause), kinds, fault: options.fault, from, to });
  const lane = buildEventLane({
    labels: labelsOf(ticks, kinds, (t) => t.object === cause),
    ticks,
    x,
    widthPx: PANEL_WIDTH,
    maxRows: 5,
  });
  const bars = stackBuckets(options.rows, { classes: STACK_ORDER, bucketS: FINE_BUCKET_MS / 1000 });
  const scale = colourScaleOf(
    bars.map((r) => r.class),
    {
      order: ['ok', ...FAILURE_CLASSES],
      colours: { ...FAILURE_COLOURS, ok: OK_BAR_COLOUR },
      fallback: '#000000',
    },
  );
  const mechanism = b['mechanism'] ? ` (${String(b['mechanism'])})` : '';
  const blamed = b['cause_kind']
    ? `cause ${String(b['cause_kind'])} ${cause}`
    : 'no lifecycle event before it';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    // Short lines: vega sizes the figure by an estimate of the title's width (0.8 em a character).
    title: {
      text: `burst ${String(options.number)} at ${String(b['start_s'])} s: ${String(b['failures'])} failed${mechanism}`,
      subtitle: blamed,
      anchor: 'start',
    },
    config: { font: 'DejaVu Sans, Arial, sans-serif', view: { stroke: '#ccc' } },
    spacing: 4,
    vconcat: [
      ...(lane ? [lane] : []),
      {
        width: PANEL_WIDTH,
        height: HEIGHT_PX,
        layer: [
          {
            data: { values: bars },
            mark: { type: 'rect' },
            encoding: {
              x,
              x2: { field: 't_end_s' },
              y: {
                field: 'y1',
                type: 'quantitative',
                title: ['requests', `per ${String(FINE_BUCKET_MS)} ms`],
                scale: { zero: true },
              },
              y2: { field: 'y0' },
              color: { field: 'class', type: 'nominal', title: 'outcome', scale },
              tooltip: [{ field: 'class' }, { field: 't_s' }, { field: 'value' }],
            },
          },
          ...buildRuleLayers(ticks, x),
        ],
      },
    ],
  };
}
