import { COMMAND_KEYS, experimentOptions } from './experiment-options.ts';
import { attributeOf, kindOf } from './option.ts';
import type { OptionKind } from './option.ts';

/**
 * The experiment's options as the file keys and flags they are written as (one table for flags,
 * experiment files, run folders and the suite), so a new flag cannot be left out of any of them.
 */
export interface OptionEntry {
  /** The file key and long flag without dashes: `restart-at`. */
  key: string;
  /** `--restart-at`. */
  long: string;
  /** The parsed flags' property: `restartAt`. */
  attribute: string;
  kind: OptionKind;
  /** A parameter's group (topology, load, fault, verdict, arms), `backend` for a backend's own option; absent for the command's own (--repeat, --results-dir). */
  group?: string;
}

/** Every option an experiment file may set (not --suite, --config, --from). */
export function optionTable(): OptionEntry[] {
  return experimentOptions().flatMap((spec) =>
    COMMAND_KEYS.has(spec.key)
      ? []
      : [
          {
            key: spec.key,
            long: `--${spec.key}`,
            attribute: attributeOf(spec.key),
            kind: kindOf(spec),
            ...(spec.group ? { group: spec.group } : {}),
          },
        ],
  );
}

/** Command-line arguments that set `values` (by attribute), in the table's order. */
export function argsFor(table: readonly OptionEntry[], values: Readonly<Record<string, unknown>>): string[] {
  return table.flatMap((entry): string[] => {
    const value = values[entry.attribute];
    if (value === undefined || value === false) return [];
    if (entry.kind === 'switch') return [entry.long];
    if (entry.kind === 'list') return (value as string[]).flatMap((item) => [entry.long, item]);
    if (entry.kind === 'timing')
      return Object.entries(value as Record<string, number>).flatMap(([name, ms]) => [
        entry.long,
        `${name}=${String(ms)}`,
      ]);
    return [entry.long, typeof value === 'string' ? value : JSON.stringify(value)];
  });
}
