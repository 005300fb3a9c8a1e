// The summary row (summary.csv, runs.csv): one run's parameters, figures and facts as cells, made
// by the sections of columns/, each declaring its columns (name, role, note) once; the row's
// columns, runs.csv's header, docs/reference.md and compare's roles all read SUMMARY_COLUMNS. The
// run folder's other tables are run-tables.ts.
import type { Burst, RecordTally } from '../tally/index.ts';
import { runFigures } from '../verdict/run-figures.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import type { Column, Section } from './columns/column.ts';
import { COUNT_SECTION, GENERATOR_SECTION, headSection } from './columns/count-columns.ts';
import { ACCOUNT_SECTION, DEADLINE_SECTION, ROLLOUT_SECTION } from './columns/deadline-columns.ts';
import { DRAIN_OPTION_SECTION } from './columns/drain-option-columns.ts';
import { CPU_COLUMN_GROUPS, CPU_SECTION, GENERATOR_COUNT_SECTION } from './columns/generator-columns.ts';
import { BACKEND_SECTION, optionSection } from './columns/parameter-columns.ts';
import { PROVENANCE_SECTION } from './columns/provenance-columns.ts';
import type { RowInput } from './columns/row-input.ts';
import type { RunFacts } from './columns/run-facts.ts';
import type { CsvRow } from './write-csv.ts';

export { CPU_COLUMN_GROUPS };
export type { Column, RunFacts };
export { EMPTY_FACTS } from './columns/run-facts.ts';

/**
 * Bumped whenever a column is added, removed or changes meaning: by hand here for a change that
 * adds no column, else by the newest column's `added.since` (an option's, a section's).
 */
// 12: deadline_wire_fin and deadline_wire_rst (measures: older rows had no capture, left empty) and
// istio_shared_ca (bookkeeping: older istio-shared rows ran FAKE_CA).
const SCHEMA_FLOOR = 12;

/** The row's sections, in column order: the documented ones first. */
const SECTIONS: readonly Section<RowInput>[] = [
  headSection(() => SUMMARY_SCHEMA_VERSION),
  optionSection('lead'),
  GENERATOR_SECTION,
  COUNT_SECTION,
  optionSection('shape'),
  GENERATOR_COUNT_SECTION,
  CPU_SECTION,
  ROLLOUT_SECTION,
  DEADLINE_SECTION,
  ACCOUNT_SECTION,
  DRAIN_OPTION_SECTION,
  PROVENANCE_SECTION,
  optionSection('arm'),
  BACKEND_SECTION,
];

/** Every column of the summary row, in order, as declared. */
export const SUMMARY_COLUMNS: readonly Column[] = SECTIONS.flatMap((s) => s.columns);

export const SUMMARY_SCHEMA_VERSION = Math.max(
  SCHEMA_FLOOR,
  ...SUMMARY_COLUMNS.map((c) => c.added?.since ?? 0),
);

/** The summary row's column names, in order: runs.csv's header. */
export const SUMMARY_COLUMN_NAMES: readonly string[] = SUMMARY_COLUMNS.map((c) => c.name);

/** The one summary row (summary.csv and runs.csv): the run's figures (run-figures.ts), parameters and facts as cells. */
export function buildSummaryRow(
  params: ExperimentParams,
  tally: RecordTally | undefined,
  bursts: Burst[],
  facts: RunFacts,
): CsvRow {
  const input: RowInput = {
    params,
    tally,
    facts,
    figures: runFigures({ tally, bursts, droppedIterations: facts.droppedIterations }),
    rel: (ms) => (ms === undefined ? '' : ((ms - facts.loadStartMs) / 1000).toFixed(3)),
  };
  return Object.assign({}, ...SECTIONS.map((s) => s.cells(input))) as CsvRow;
}
