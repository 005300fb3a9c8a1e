import type { TopLevelSpec } from 'vega-lite';

/** vega-lite's types for a vconcat's layered panel and its layers (vega-lite exports only the top). */
export type LayerPanel = Extract<
  Extract<TopLevelSpec, { vconcat: unknown }>['vconcat'][number],
  { layer: unknown }
>;
export type Layer = LayerPanel['layer'][number];

/** The shared x encoding: seconds from load start over a fixed domain. */
export interface TimeAxis {
  field: string;
  type: 'quantitative';
  title: string;
  scale: { domain: number[] };
  /** null: no axis (the event lane above a plot). */
  axis?: null;
}
