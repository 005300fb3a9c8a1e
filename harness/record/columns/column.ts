// A summary-row column, declared once: its name, its role for compare, the note docs/reference.md
// prints, and (for a column added after the first schema) what older rows ran with. The row
// (summary-row.ts), runs.csv's header, the reference and compare's configuration key all read the
// declarations; a section pairs its columns with the one function that makes their cells.
import type { ColumnAdded, ColumnRole } from '../../options/column-binding.ts';
import type { CsvRow } from '../write-csv.ts';

export type { ColumnRole };

export interface Column {
  name: string;
  role: ColumnRole;
  note: string;
  added?: ColumnAdded;
}

/** A column's declaration by name: a measure's note, or its role and note. */
export type ColumnNote = string | Omit<Column, 'name'>;

export type Cell = string | number;

/** Columns in row order and their cells, made from the run's inputs I. */
export interface Section<I> {
  columns: readonly Column[];
  cells: (input: I) => CsvRow;
}

/** Declared columns (a bare note is a measure's) in declaration order. */
export function declareColumns(notes: Readonly<Record<string, ColumnNote>>): Column[] {
  return Object.entries(notes).map(([name, note]) =>
    typeof note === 'string' ? { name, role: 'measure', note } : { name, ...note },
  );
}

/**
 * A section: its columns declared by name, and a cells function that must fill exactly those
 * names (the compiler checks: a declared column without a cell, or a cell without a declaration,
 * does not build).
 */
export function section<K extends string, I>(
  notes: Readonly<Record<K, ColumnNote>>,
  cells: (input: I) => Record<K, Cell>,
): Section<I> {
  return { columns: declareColumns(notes), cells };
}
