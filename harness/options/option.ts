// What one experiment option is, as data: the flag and its help, how a value is parsed, its default,
// the parameter it sets and which result column records it. The option table (experiment-options.ts,
// arms.ts) is a list of these; commander's program, experiment files, run folders' experiment.yaml,
// the suite, the summary row's parameter columns, compare's configuration key and docs/reference.md
// are all made from it, and the run's parameter type (ExperimentParams) is derived from it.
//
// Each entry is written typed (`paramOption<V, P, D>`: the flag's value V as its parser returns it,
// the parameter P it becomes, the parameters D it reads); the table's consumers read the entry's
// erased form (TableOption), made once here, so a flag's value meets its own option's code only.
import type { Requirement } from '../../clusters/capabilities.ts';
import type { Flag } from '../../lib/index.ts';
import type { ColumnBinding } from './column-binding.ts';

export type { ColumnAdded, ColumnBinding, ColumnGroup, ColumnRole } from './column-binding.ts';

/** A flag's value as an experiment file or the command line writes it. */
export type FlagValue = string | number | boolean | readonly string[] | Readonly<Record<string, number>>;

/** The scenario a run's parameters are made for (run/cluster-scenario.ts gives it). */
export interface ScenarioInfo {
  name: string;
  defaults?: Readonly<Record<string, unknown>>;
  /** The scenario's --max-failed; undefined: it judges no count (its thresholds judge). */
  defaultMaxFailed?: number | undefined;
  /** The scenario's --threshold list where the user gives none. */
  defaultThresholds?: readonly string[] | undefined;
}

/** Everything a flag's value may be checked against when its parameter is made. */
export interface ResolveContext<D> {
  /** The scenario's name and its defaults (a user's flag still wins). */
  scenario: ScenarioInfo & { defaults: Readonly<Record<string, unknown>> };
  /** Whether the user gave this flag (on the command line or in a file), rather than its default. */
  given: boolean;
  /** The parameters this option declared it reads (`reads`), set by options before it. */
  params: Readonly<D>;
}

/** The flag itself (lib/flag.ts) and what the experiment's options add: what commander, experiment files and the help read. */
export interface FlagSpec<V> extends Flag<V> {
  /** Repeatable: a list of values, or timing's name=ms pairs (a map in files). */
  repeatable?: 'list' | 'timing';
  /** What the backend must be able to do for this value (clusters/capabilities.ts); false: nothing. */
  requires?: (value: V) => Omit<Requirement, 'flag'> | false;
  /**
   * The scenarios whose components read it; away from its default with another scenario the run is
   * refused (exit 2), since the row would record a value nothing acted on. Absent: every scenario.
   */
  scenarios?: readonly string[];
}

/** An option that sets a parameter of the run: V the flag's value, P the parameter, D what it reads. */
export interface ParamSpec<V, P, D> extends FlagSpec<V> {
  /** The scenario's default of the same name applies when the flag is not given (ScenarioDefaults). */
  scenarioDefault?: boolean;
  /** The parameters (of options earlier in the table) toParam and fromParam read: D's keys. */
  reads?: readonly (keyof D & string)[];
  /** The parameter from the flag, when not the flag's value itself. */
  toParam?: (value: V, context: ResolveContext<D>) => P;
  /** The flag that gives the parameter back (run folders re-run it); default: the value itself. */
  fromParam?: (value: P, params: Readonly<D>) => FlagValue | undefined;
  /** Its result column, when the row records it. */
  column?: ColumnBinding<P>;
}

/** A column as the table declares it: everything but the cell's rendering, which the entry keeps. */
export type ColumnDeclaration = Omit<ColumnBinding<never>, 'render'>;

/**
 * One entry of the table, erased to what its consumers need: the flag, and for a parameter its
 * name (`arms.<key>` for an arm), the dependencies and the three conversions, each applied to a
 * value of its own option only.
 */
export interface TableOption {
  key: string;
  short?: string;
  arg?: string;
  description: string;
  detail?: string;
  parse?: (raw: string, previous: unknown) => unknown;
  default?: unknown;
  repeatable?: 'list' | 'timing';
  requires?: (flag: unknown) => Omit<Requirement, 'flag'> | false;
  scenarios?: readonly string[];
  /** A parameter's group (the arms': `arms`), or `backend` for a backend's own option. */
  group?: ParamGroup | 'arms' | 'backend';
  /** What this option sets in ExperimentParams; absent: it says how the command runs. */
  param?: string;
  scenarioDefault?: boolean;
  reads?: readonly string[];
  /** The parameter from the flag's value (the scenario's default already applied). */
  toParam?: (flag: unknown, context: ResolveContext<Readonly<Record<string, unknown>>>) => unknown;
  fromParam?: (value: unknown, params: Readonly<Record<string, unknown>>) => unknown;
  column?: ColumnDeclaration;
  /** The parameter's cell in the summary row. */
  cellOf?: (value: unknown) => string | number;
}

/**
 * What a parameter is about: the cluster and what runs on it, the load, the fault and when it
 * comes, how the run is judged. The arms are a group of their own (arms.ts, `params.arms`).
 */
export const PARAM_GROUPS = ['topology', 'load', 'fault', 'verdict'] as const;
export type ParamGroup = (typeof PARAM_GROUPS)[number];

/** A typed entry: its erased form under the parameter's name; P is only read by ParamsOf, G by ParamsIn. */
export interface ParamOption<P, G extends ParamGroup | undefined = ParamGroup | undefined> {
  readonly kind: 'param';
  readonly group: G;
  readonly table: (param: string) => TableOption;
  /** Never set: carries the parameter's type to ParamsOf. */
  readonly parameterType?: P;
}

/** Puts a typed entry in its group (the table writes `load(paramOption<number>({...}))`). */
export function inGroup<G extends ParamGroup>(group: G) {
  return <P>(option: ParamOption<P, undefined>): ParamOption<P, G> => ({
    ...option,
    group,
    table: (param) => ({ ...option.table(param), group }),
  });
}

/** An option of the command (results folder, repeats, the suite), not of the experiment. */
export interface CommandOption {
  readonly kind: 'command';
  readonly table: () => TableOption;
}

/** The parameters a table of typed entries sets, by name (command options set none). */
export type ParamsOf<T> = {
  -readonly [K in keyof T as T[K] extends ParamOption<unknown> ? K : never]: T[K] extends ParamOption<infer P>
    ? P
    : never;
};

/** The parameters of one group of the table. */
export type ParamsIn<T, G extends ParamGroup> = {
  -readonly [K in keyof T as T[K] extends ParamOption<unknown, G> ? K : never]: T[K] extends ParamOption<
    infer P,
    G
  >
    ? P
    : never;
};

/** The flag's own fields, copied as declared (absent stays absent). */
export function flagFields<V>(spec: FlagSpec<V>): TableOption {
  const entry: TableOption = { key: spec.key, description: spec.description };
  if (spec.short !== undefined) entry.short = spec.short;
  if (spec.arg !== undefined) entry.arg = spec.arg;
  if (spec.detail !== undefined) entry.detail = spec.detail;
  if (spec.default !== undefined) entry.default = spec.default;
  if (spec.repeatable !== undefined) entry.repeatable = spec.repeatable;
  if (spec.scenarios !== undefined) entry.scenarios = spec.scenarios;
  // commander hands each option's parser and requirement only that option's values (its own
  // parser's results or its default): V by construction.
  const { parse, requires } = spec;
  if (parse) entry.parse = (raw, previous) => parse(raw, previous as V);
  if (requires) entry.requires = (flag) => requires(flag as V);
  return entry;
}

/** A cell is the parameter itself unless rendered: a string or a number. */
function plainCell(value: unknown): string | number {
  if (typeof value === 'string' || typeof value === 'number') return value;
  throw new TypeError(`a parameter column needs a render for ${JSON.stringify(value)}`);
}

/** The table's erased form of a typed parameter entry (arms.ts makes its entries with it too). */
export function eraseParamSpec<V, P, D>(param: string, spec: ParamSpec<V, P, D>): TableOption {
  const entry = flagFields(spec);
  entry.param = param;
  if (spec.scenarioDefault) entry.scenarioDefault = true;
  if (spec.reads) entry.reads = spec.reads;
  // params.ts calls these with this option's own flag and parameter and with the parameters it
  // declared in `reads`, already set: V, P and D by construction.
  const { toParam, fromParam, column } = spec;
  if (toParam) entry.toParam = (flag, c) => toParam(flag as V, { ...c, params: c.params as Readonly<D> });
  if (fromParam) entry.fromParam = (value, params) => fromParam(value as P, params as Readonly<D>);
  if (column) {
    const { render, ...declared } = column;
    entry.column = declared;
    entry.cellOf = render ? (value) => render(value as P) : plainCell;
  }
  return entry;
}

/** An option that sets parameter P; without toParam the flag's value is the parameter. */
export function paramOption<V, D = object>(
  spec: ParamSpec<V, V, D> & { toParam?: undefined },
): ParamOption<V, undefined>;
export function paramOption<V, P, D = object>(
  spec: ParamSpec<V, P, D> & { toParam: ParamSpec<V, P, D>['toParam'] & object },
): ParamOption<P, undefined>;
export function paramOption<V, P, D>(spec: ParamSpec<V, P, D>): ParamOption<P, undefined> {
  return { kind: 'param', group: undefined, table: (param) => eraseParamSpec(param, spec) };
}

/** An option of the command: run folders do not record it. */
export function commandOption<V>(spec: FlagSpec<V>): CommandOption {
  return { kind: 'command', table: () => flagFields(spec) };
}

/** `restart-at` -> `restartAt`: commander's attribute name, the parsed flags' property. */
export function attributeOf(key: string): string {
  return key.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** commander's flags text: `-c, --connections <n>`. */
export function flagsText(spec: Pick<TableOption, 'key' | 'short' | 'arg'>): string {
  return `${spec.short ? `${spec.short}, ` : ''}--${spec.key}${spec.arg ? ` ${spec.arg}` : ''}`;
}

/** How an option's value is written in an experiment file and on the command line. */
export type OptionKind = 'switch' | 'value' | 'timing' | 'list';

export function kindOf(spec: Pick<TableOption, 'arg' | 'repeatable'>): OptionKind {
  if (!spec.arg) return 'switch';
  return spec.repeatable ?? 'value';
}
