type Row = Record<string, string | number>;

/** One class's share of one bucket's bar: from y0 to y1 on the value axis. */
export interface StackedRect {
  t_s: number;
  t_end_s: number;
  class: string;
  /** The class's value in the bucket (a count, or a rate when `perBucket` scales it). */
  value: number;
  y0: number;
  y1: number;
}

/**
 * Stacked bars computed here rather than by vega-lite (which does not stack `rect` marks, so bars
 * of one bucket drew over each other): per bucket row, each class in `classes` with a value above
 * zero, the first at the bottom. Classes absent from `classes` are not drawn.
 */
export function stackBuckets(
  rows: readonly Row[],
  options: { classes: readonly string[]; bucketS: number; perBucket?: number },
): StackedRect[] {
  const scale = options.perBucket ?? 1;
  return rows.flatMap((r) => {
    const t = Number(r['t_s']);
    let top = 0;
    return options.classes
      .filter((c) => Number(r[c] ?? 0) > 0)
      .map((c) => {
        const value = Number(r[c]) * scale;
        const rect = { t_s: t, t_end_s: t + options.bucketS, class: c, value, y0: top, y1: top + value };
        top += value;
        return rect;
      });
  });
}
