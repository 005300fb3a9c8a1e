// How an option's parameter is recorded in the summary row: the column's name, role, group and note.
// arms.ts and option.ts both declare columns with it.

/** A column's role: compare keys configurations on parameters only. */
export type ColumnRole = 'parameter' | 'measure' | 'bookkeeping';

/** Where a parameter column sits in the row: beside the counts, after them, or with the arms. */
export type ColumnGroup = 'lead' | 'shape' | 'arm';

/**
 * A column added after the first schema: the schema version that added it and the value every older
 * row ran with. A row holding that value keys as an older row without the column does (compare
 * across the change); the newest `since` is the summary row's schema version.
 */
export interface ColumnAdded {
  since: number;
  olderRowsRan: string;
}

export interface ColumnBinding<P> {
  /** The summary row's column: `grace_s`. */
  name: string;
  /** What docs/reference.md says of it after the flag's name: `, seconds`. */
  note?: string;
  group: ColumnGroup;
  /** Default: parameter (keys configurations in compare). */
  role?: ColumnRole;
  /** The cell, when it is not the parameter's own value (booleans as 1/0, undefined as a word). */
  render?: (value: P) => string | number;
  added?: ColumnAdded;
}
