import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import { optionTable } from '../options/option-table.ts';
import { flagsOf } from '../options/params.ts';

/** The experiment file every run folder holds: what `--from <run dir>` re-runs. */
export const RUN_CONFIG_FILE = 'experiment.yaml';

/**
 * The flags that give exactly these parameters, by attribute, every one explicit (no scenario or CLI
 * default left to fill in, so a later change of a default does not change a re-run).
 */
export function paramsToFlags(p: ExperimentParams): Record<string, unknown> {
  return flagsOf(experimentOptions(), p);
}

/** The parameters as an experiment file's text (keys are the long flag names). */
export function formatRunConfig(params: ExperimentParams, runDir: string): string {
  const flags = paramsToFlags(params);
  const entries = optionTable().flatMap((o) =>
    flags[o.attribute] === undefined ? [] : [[o.key, flags[o.attribute]] as const],
  );
  return (
    `# The experiment of this run, every option explicit. Re-run it:\n` +
    `#   npm run experiment -- --from ${runDir}\n` +
    stringify(Object.fromEntries(entries))
  );
}

export async function writeRunConfig(runDir: string, params: ExperimentParams): Promise<void> {
  await writeFile(join(runDir, RUN_CONFIG_FILE), formatRunConfig(params, runDir));
}
