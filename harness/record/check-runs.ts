import type { RunRow } from './compare/read-runs.ts';

/**
 * What is wrong with a job's runs.csv, given the complete runs it read (readRuns drops aborted
 * ones): not exactly `rows` of them, a run that sent no request, a row from another backend, a
 * column the job needs measured left empty. Empty when the job left the results it was started for.
 */
export function checkRuns(
  runs: readonly RunRow[],
  expected: { rows: number; backend?: string; filled?: readonly string[] },
): string[] {
  const problems: string[] = [];
  if (runs.length !== expected.rows)
    problems.push(
      `${String(runs.length)} complete runs, expected ${String(expected.rows)} (a run that could not run is no result: its run folder's summary.csv says why)`,
    );
  for (const run of runs) {
    const id = run.values['run_id'] ?? `line ${String(run.line)}`;
    if (run.counts.requests === 0) problems.push(`${id}: no request was sent`);
    if (expected.backend !== undefined && run.values['backend'] !== expected.backend)
      problems.push(`${id}: backend ${run.values['backend'] ?? '(none)'}, expected ${expected.backend}`);
    for (const column of expected.filled ?? [])
      if (!run.values[column]) problems.push(`${id}: ${column} is empty: it was not measured`);
  }
  return problems;
}
