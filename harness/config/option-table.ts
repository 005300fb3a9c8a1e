import type { Command, Option } from 'commander';

/**
 * The experiment's options as data, read from the CLI program itself (one table for flags, experiment
 * files, run folders and the suite), so a new flag cannot be left out of any of them.
 */
export interface OptionEntry {
  /** The file key and long flag without dashes: `restart-at`. */
  key: string;
  /** `--restart-at`. */
  long: string;
  /** The parsed flags' property: `restartAt`. */
  attribute: string;
  kind: 'switch' | 'value' | 'timing' | 'list';
}

/** Repeatable options that collect a list (the file takes a YAML list). */
const REPEATABLE = new Set(['threshold', 'k6Out']);

/** Options that select how the command runs, not what an experiment is. */
const NOT_EXPERIMENT = new Set(['suite', 'config', 'from', 'help', 'version']);

export function optionTable(program: Command): OptionEntry[] {
  return program.options.flatMap((option: Option) => {
    const long = option.long ?? '';
    const key = long.replace(/^--/, '');
    if (!long || NOT_EXPERIMENT.has(key)) return [];
    const attribute = option.attributeName();
    const kind = option.isBoolean()
      ? 'switch'
      : attribute === 'timing'
        ? 'timing'
        : REPEATABLE.has(attribute)
          ? 'list'
          : 'value';
    return [{ key, long, attribute, kind }];
  });
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
