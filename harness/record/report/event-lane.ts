import { EVENT_COLOUR, FAULT_COLOUR } from './colours.ts';
import type { Layer, LayerPanel, TimeAxis } from './vega-types.ts';

/** An event to name above the plot; the lower `priority`, the sooner it gets a place. */
export interface LaneLabel {
  t_s: number;
  label: string;
  priority: number;
  isFault?: boolean;
}

export interface PlacedLabel extends LaneLabel {
  row: number;
  align: 'left' | 'right';
  /** Where the text starts and ends, in pixels from the left of the panel (estimated). */
  fromPx: number;
  toPx: number;
}

export const LABEL_FONT_PX = 10;
export const LABEL_ROW_PX = 13;
/** DejaVu Sans at 10 px measures ~5.3 px a character in these labels; over-estimating only spaces them out. */
const CHAR_PX = 5.8;
const GAP_PX = 6;
/** How far a label's text sits from its rule. */
const OFFSET_PX = 3;

/** Where the label's text would lie: right of its rule, or left of it where it would run off the end. */
function spanOf(label: LaneLabel, domain: readonly number[], widthPx: number) {
  const [d0 = 0, d1 = 1] = domain;
  const px = ((label.t_s - d0) / (d1 - d0 || 1)) * widthPx;
  const w = label.label.length * CHAR_PX;
  return px + OFFSET_PX + w <= widthPx || px - OFFSET_PX - w < 0
    ? { align: 'left' as const, fromPx: px + OFFSET_PX, toPx: px + OFFSET_PX + w }
    : { align: 'right' as const, fromPx: px - OFFSET_PX - w, toPx: px - OFFSET_PX };
}

/**
 * Rows for the labels so that no two overprint: by priority, each takes the first of `maxRows` rows
 * where it clears the labels already there. Those that fit nowhere are left out (their rules stay,
 * unlabelled; every event is in the events table).
 */
export function placeLabels(
  labels: readonly LaneLabel[],
  options: { domain: readonly number[]; widthPx: number; maxRows: number },
): PlacedLabel[] {
  const rows: { fromPx: number; toPx: number }[][] = [];
  const placed: PlacedLabel[] = [];
  const order = [...labels].sort((a, b) => a.priority - b.priority || a.t_s - b.t_s);
  for (const label of order) {
    const span = spanOf(label, options.domain, options.widthPx);
    const clear = (taken: { fromPx: number; toPx: number }[]): boolean =>
      taken.every((s) => span.toPx + GAP_PX <= s.fromPx || s.toPx + GAP_PX <= span.fromPx);
    let row = rows.findIndex(clear);
    if (row === -1 && rows.length < options.maxRows) row = rows.push([]) - 1;
    if (row === -1) continue;
    rows[row]?.push(span);
    placed.push({ ...label, ...span, row });
  }
  return placed.sort((a, b) => a.t_s - b.t_s);
}

/** A vertical line at an event; the fault's is solid and coloured, the rest dashed grey. */
export interface Tick {
  t_s: number;
  kind: string;
  object: string;
  isFault?: boolean;
}

/** The rules every panel draws at `ticks`: dashed for lifecycle events, solid for the fault. */
export function buildRuleLayers(ticks: readonly Tick[], x: TimeAxis): Layer[] {
  const events = ticks.filter((t) => t.isFault !== true);
  const faults = ticks.filter((t) => t.isFault === true);
  const tooltip = [{ field: 'kind' }, { field: 'object' }, { field: 't_s' }];
  return [
    ...(events.length > 0
      ? [
          {
            data: { values: events },
            mark: { type: 'rule' as const, color: EVENT_COLOUR, strokeDash: [3, 3], strokeWidth: 1 },
            encoding: { x, tooltip },
          },
        ]
      : []),
    ...(faults.length > 0
      ? [
          {
            data: { values: faults },
            mark: { type: 'rule' as const, color: FAULT_COLOUR, strokeWidth: 2 },
            encoding: { x, tooltip },
          },
        ]
      : []),
  ];
}

/** A text layer for the labels of one alignment, each on its row (pixels from the lane's top). */
function textLayer(placed: readonly PlacedLabel[], x: TimeAxis, align: 'left' | 'right'): Layer {
  return {
    data: {
      values: placed
        .filter((p) => p.align === align)
        .map((p) => ({
          t_s: p.t_s,
          label: p.label,
          ypx: (p.row + 0.5) * LABEL_ROW_PX + 1,
          isFault: p.isFault === true,
        })),
    },
    mark: {
      type: 'text',
      align,
      baseline: 'middle',
      dx: align === 'left' ? OFFSET_PX : -OFFSET_PX,
      fontSize: LABEL_FONT_PX,
    },
    encoding: {
      x,
      y: { field: 'ypx', type: 'quantitative', scale: null },
      text: { field: 'label' },
      color: { condition: { test: 'datum.isFault', value: FAULT_COLOUR }, value: EVENT_COLOUR },
    },
  };
}

/**
 * White boxes under the labels (their estimated extent), so the rules of other events do not strike
 * through the text; in time units on x, so they sit on the same scale as the text.
 */
function backdropLayer(placed: readonly PlacedLabel[], x: TimeAxis, widthPx: number): Layer {
  const [d0 = 0, d1 = 1] = x.scale.domain;
  const toS = (px: number): number => d0 + (Math.min(Math.max(px, 0), widthPx) / widthPx) * (d1 - d0);
  return {
    data: {
      values: placed.map((p) => ({
        from_s: toS(p.fromPx - 1),
        to_s: toS(p.toPx + 1),
        top: p.row * LABEL_ROW_PX + 1,
        bottom: (p.row + 1) * LABEL_ROW_PX + 1,
      })),
    },
    mark: { type: 'rect', color: '#ffffff' },
    encoding: {
      x: { ...x, field: 'from_s' },
      x2: { field: 'to_s' },
      y: { field: 'top', type: 'quantitative', scale: null },
      y2: { field: 'bottom' },
    },
  };
}

/**
 * The strip above a plot that names its events: the rules at `ticks` (the same ones the panels below
 * draw, so each name hangs off its line) and the placed labels, with no axes. Undefined when nothing
 * is named.
 */
export function buildEventLane(options: {
  labels: readonly LaneLabel[];
  ticks: readonly Tick[];
  x: TimeAxis;
  widthPx: number;
  maxRows: number;
}): LayerPanel | undefined {
  const placed = placeLabels(options.labels, {
    domain: options.x.scale.domain,
    widthPx: options.widthPx,
    maxRows: options.maxRows,
  });
  if (placed.length === 0) return undefined;
  const rows = Math.max(...placed.map((p) => p.row)) + 1;
  const x: TimeAxis = { ...options.x, axis: null };
  return {
    width: options.widthPx,
    height: rows * LABEL_ROW_PX + 2,
    view: { stroke: null },
    layer: [
      ...buildRuleLayers(options.ticks, x),
      backdropLayer(placed, x, options.widthPx),
      textLayer(placed, x, 'left'),
      textLayer(placed, x, 'right'),
    ],
  };
}
