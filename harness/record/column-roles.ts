// Every summary-row column's role, as its declaration says (record/columns/, the option table, the
// backends), the scenarios' companion columns (measures) and the retired columns of older schemas.
// compare keys configurations on parameters only, so a measure added later never splits them and a
// parameter added later always does.
import type { ColumnRole } from '../options/column-binding.ts';
import { COMPANION_COLUMNS } from './columns/companion-columns.ts';
import { SUMMARY_COLUMNS } from './run-row.ts';

export interface ColumnSpec {
  role: ColumnRole;
  /** A column added after the first schema: the value every older row ran with. */
  olderRowsRan?: string;
}

/** Columns of older schemas, no longer written (k6 was the only generator before schema 7). */
const RETIRED: Readonly<Record<string, ColumnRole>> = {
  k6_http_reqs: 'measure',
  k6_cpu_avg_pct: 'measure',
  k6_cpu_max_pct: 'measure',
  k6_version: 'bookkeeping',
};

function build(): Map<string, ColumnSpec> {
  const roles = new Map<string, ColumnSpec>();
  for (const [name, role] of Object.entries(RETIRED)) roles.set(name, { role });
  for (const c of SUMMARY_COLUMNS)
    roles.set(c.name, { role: c.role, ...(c.added ? { olderRowsRan: c.added.olderRowsRan } : {}) });
  for (const name of Object.keys(COMPANION_COLUMNS)) roles.set(name, { role: 'measure' });
  return roles;
}

let cached: Map<string, ColumnSpec> | undefined;

/** Each known column's role; a column not known here (a newer schema's) is taken as a parameter. */
export function summaryColumnRoles(): ReadonlyMap<string, ColumnSpec> {
  cached ??= build();
  return cached;
}
