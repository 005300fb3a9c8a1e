// What one experiment option is, as data: the flag and its help, how a value is parsed, its default,
// where it lands in the run's parameters and which result column records it. The option table
// (experiment-options.ts, arms.ts) is a list of these; commander's program, experiment files, run
// folders' experiment.yaml, the suite, the summary row's parameter columns, compare's configuration
// key and docs/reference.md are all made from it.
import type { Requirement } from '../../clusters/capabilities.ts';

/** A column's role: compare keys configurations on parameters only. */
export type ColumnRole = 'parameter' | 'measure' | 'bookkeeping';

/** Where a parameter column sits in the row: beside the counts, after them, or with the arms. */
export type ColumnGroup = 'lead' | 'shape' | 'arm';

export interface ColumnBinding<P> {
  /** The summary row's column: `grace_s`. */
  name: string;
  /** What docs/reference.md says of it after the flag's name: `, seconds`. */
  note?: string;
  group: ColumnGroup;
  /** Default: parameter (keys configurations in compare). */
  role?: ColumnRole;
  /** The cell, when it is not the parameter's own value (booleans as 1/0, undefined as a word). */
  render?: (value: P) => string | number;
  /**
   * A column added after the first schema: the schema version that added it and the value every
   * older row ran with. A row holding that value keys as an older row without the column does
   * (compare across the change); the newest `since` is the summary row's schema version.
   */
  added?: { since: number; olderRowsRan: string };
}

/** Everything a flag's value may be checked against when the parameters are made. */
export interface ResolveContext<F> {
  /** Every flag, by attribute (camelCase key). */
  flags: Readonly<F>;
  /** The scenario's name and its defaults (a user's flag still wins). */
  scenario: { name: string; defaults: Readonly<Record<string, unknown>>; defaultMaxFailed: number };
  /** Whether the user gave this flag (on the command line or in a file), rather than its default. */
  given: boolean;
  /** The parameters of the options before this one in the table. */
  params: Readonly<Record<string, unknown>>;
}

export interface OptionSpec<V = unknown, P = V, F = Record<string, unknown>> {
  /** The long flag without dashes and the experiment file's key: `restart-at`. */
  key: string;
  /** A one-letter alias: `-c`. */
  short?: string;
  /** The value's placeholder (`<s>`); absent for a switch. */
  arg?: string;
  description: string;
  /** Parses and checks a raw value (bad input: exit 2 naming the flag); absent: the raw string. */
  parse?: (raw: string, previous: V) => V;
  default?: V;
  /** Repeatable: a list of values, or timing's name=ms pairs (a map in files). */
  repeatable?: 'list' | 'timing';
  /**
   * What this option sets in ExperimentParams (the field; arms.ts's entries set `arms.<key>`).
   * Absent: the option says how the command runs (results folder, repeats, the suite), not what the
   * experiment is, and run folders do not record it.
   */
  param?: string;
  /** The scenario's default of the same name applies when the flag is not given (ScenarioDefaults). */
  scenarioDefault?: boolean;
  /** The parameter from the flag, when not the flag's value itself. */
  toParam?: (value: V, context: ResolveContext<F>) => P;
  /** The flag that gives the parameter back (run folders re-run it); default: the value itself. */
  fromParam?: (value: P, params: Readonly<Record<string, unknown>>) => V | undefined;
  /** Its result column, when the row records it. */
  column?: ColumnBinding<P>;
  /** What the backend must be able to do for this value (clusters/capabilities.ts); false: nothing. */
  requires?: (value: V, flags: Readonly<F>) => Omit<Requirement, 'flag'> | false;
}

/** `restart-at` -> `restartAt`: commander's attribute name, the parsed flags' property. */
export function attributeOf(key: string): string {
  return key.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** commander's flags text: `-c, --connections <n>`. */
export function flagsText(spec: Pick<OptionSpec, 'key' | 'short' | 'arg'>): string {
  return `${spec.short ? `${spec.short}, ` : ''}--${spec.key}${spec.arg ? ` ${spec.arg}` : ''}`;
}

/** How an option's value is written in an experiment file and on the command line. */
export type OptionKind = 'switch' | 'value' | 'timing' | 'list';

export function kindOf(spec: Pick<OptionSpec, 'arg' | 'repeatable'>): OptionKind {
  if (!spec.arg) return 'switch';
  return spec.repeatable ?? 'value';
}
