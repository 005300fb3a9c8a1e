// `compare --across <column>=<a>,<b>`: one parameter's two values judged against each other, every
// other parameter matching as usual. The version matrix's question, "does istio/ztunnel <b> lose less
// than <a>?", is `--across ztunnel_version=1.28.1,1.30.3` over the versions suite's runs.csv; one file
// may serve as both baseline and candidate.
import { badInput } from '../../../lib/index.ts';
import { summaryColumnRoles } from '../column-roles.ts';
import type { RunRow } from './read-runs.ts';

export interface Across {
  column: string;
  baseline: string;
  candidate: string;
}

/** `ztunnel_version=1.28.1,1.30.3`: a parameter column and its baseline and candidate values. */
export function parseAcross(raw: string): Across {
  const match = /^([a-z][a-z0-9_]*)=([^,]*),([^,]*)$/.exec(raw);
  const hint =
    'e.g. --across ztunnel_version=1.28.1,1.30.3 (an empty value: rows that leave the column empty)';
  if (!match) throw badInput('--across', '<column>=<baseline value>,<candidate value>', raw, hint);
  const [, column = '', baseline = '', candidate = ''] = match;
  const spec = summaryColumnRoles().get(column);
  if (spec?.role !== 'parameter')
    throw badInput(
      '--across',
      'a parameter column of runs.csv (docs/reference.md, the columns compare keys on)',
      column,
      spec ? `${column} is a ${spec.role} column` : hint,
    );
  if (baseline === candidate) throw badInput('--across', 'two different values', raw, hint);
  return { column, baseline, candidate };
}

/**
 * The rows whose column holds `value`, the column dropped, so that they key with the other side's;
 * bad input naming the values present when none does.
 */
function side(rows: readonly RunRow[], column: string, value: string, path: string): RunRow[] {
  const kept = rows.filter((r) => (r.values[column] ?? '') === value);
  if (kept.length === 0) {
    const present = [...new Set(rows.map((r) => r.values[column] ?? ''))].map((v) => JSON.stringify(v));
    throw badInput(`--across ${column}`, `a value ${path} holds (${present.join(', ')})`, value);
  }
  return kept.map((r) => ({
    ...r,
    values: Object.fromEntries(Object.entries(r.values).filter(([k]) => k !== column)),
  }));
}

export function splitAcross(
  across: Across,
  baseline: { rows: readonly RunRow[]; path: string },
  candidate: { rows: readonly RunRow[]; path: string },
): { baseline: RunRow[]; candidate: RunRow[] } {
  return {
    baseline: side(baseline.rows, across.column, across.baseline, baseline.path),
    candidate: side(candidate.rows, across.column, across.candidate, candidate.path),
  };
}
