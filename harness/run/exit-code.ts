import { EXIT } from '../../lib/index.ts';

/**
 * The exit code of runs' rows: 3 when a run could not run (verdict `aborted`: a component failed,
 * the cluster never came up, the load could not be read), else 1 when a verdict failed, else 0. A
 * script (the nightly job) tells an experiment that ran and failed from one that could not run.
 */
export function exitCodeOfRows(rows: readonly Record<string, string | number>[]): number {
  if (rows.length === 0 || rows.some((r) => r['verdict'] === 'aborted')) return EXIT.couldNotRun;
  return rows.every((r) => r['verdict'] === 'pass') ? EXIT.pass : EXIT.failed;
}
