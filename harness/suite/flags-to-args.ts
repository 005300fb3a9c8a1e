import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { buildExperimentProgram } from '../cli/experiment-program.ts';
import { argsFor, optionTable } from '../config/option-table.ts';

/**
 * The `npm run experiment` arguments that reproduce a set of flags (for children and the table),
 * generated from the program's own option table: every experiment option set survives.
 */
export function flagsToArgs(flags: Partial<ExperimentFlags>): string[] {
  return argsFor(optionTable(buildExperimentProgram()), flags);
}
