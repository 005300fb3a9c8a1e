// Every summary-row column's role, declared where the columns are made: the option table's (each
// entry says), the facts that name what ran, bookkeeping, the backend's, the scenarios' companion
// columns; every other column of the row is a measure. compare keys configurations on parameters
// only, so a measure added later never splits them and a parameter added later always does.
import { BACKEND_COLUMN_ROLES } from '../../clusters/backend-columns.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { DEFAULT_ARMS } from '../options/arms.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import type { ColumnRole } from '../options/option.ts';
import { optionColumnRoles } from '../options/params.ts';
import { CLUSTER_SCENARIOS } from '../run/scenarios/index.ts';
import { buildSummaryRow, EMPTY_FACTS } from './run-row.ts';

export interface ColumnSpec {
  role: ColumnRole;
  /** A column added after the first schema: the value every older row ran with. */
  olderRowsRan?: string;
}

/** Columns the run's facts fill that say what ran: a different one is another configuration. */
const FACT_PARAMETERS: Readonly<Record<string, ColumnSpec>> = {
  // Schema 7: every older row's load came from k6.
  generator: { role: 'parameter', olderRowsRan: 'k6' },
  // Schema 8: older rows ran the Node imitation of Envoy, no Envoy at all (''); a row of the real
  // Envoy is another gateway, so it does not key with them.
  envoy_version: { role: 'parameter', olderRowsRan: '' },
};

const BOOKKEEPING = [
  'schema_version',
  'run_id',
  'verdict',
  'reason',
  'started_at',
  'git_sha',
  'generator_version',
];

/** Columns of older schemas, no longer written (k6 was the only generator before schema 7). */
const RETIRED: Readonly<Record<string, ColumnRole>> = {
  k6_http_reqs: 'measure',
  k6_cpu_avg_pct: 'measure',
  k6_cpu_max_pct: 'measure',
  k6_version: 'bookkeeping',
};

function build(): Map<string, ColumnSpec> {
  const params = { arms: DEFAULT_ARMS } as unknown as ExperimentParams;
  const roles = new Map<string, ColumnSpec>(
    Object.keys(buildSummaryRow(params, undefined, [], EMPTY_FACTS)).map((c) => [c, { role: 'measure' }]),
  );
  for (const [name, role] of Object.entries(RETIRED)) roles.set(name, { role });
  for (const name of BOOKKEEPING) roles.set(name, { role: 'bookkeeping' });
  for (const [name, role] of Object.entries(BACKEND_COLUMN_ROLES)) roles.set(name, { role });
  for (const scenario of Object.values(CLUSTER_SCENARIOS))
    for (const name of scenario.companionColumns ?? []) roles.set(name, { role: 'measure' });
  for (const [name, spec] of Object.entries(FACT_PARAMETERS)) roles.set(name, spec);
  for (const [name, spec] of optionColumnRoles(experimentOptions())) roles.set(name, spec);
  return roles;
}

let cached: Map<string, ColumnSpec> | undefined;

/** Each known column's role; a column not known here (a newer schema's) is taken as a parameter. */
export function summaryColumnRoles(): ReadonlyMap<string, ColumnSpec> {
  cached ??= build();
  return cached;
}
