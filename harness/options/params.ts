// Flags <-> parameters, both ways, from the option table: each entry names its parameter field (arms
// under `arms.`), how a flag becomes it and back. No option is mapped by hand.
import type { ExperimentParams } from './experiment-params.ts';
import { attributeOf } from './option.ts';
import type { ColumnGroup, ScenarioInfo, TableOption } from './option.ts';

export type { ScenarioInfo };

function read(target: Readonly<Record<string, unknown>>, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], target);
}

function write(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let at = target;
  for (const k of keys) at = (at[k] ??= {}) as Record<string, unknown>;
  at[last] = value;
}

/** The parameters an option declared it reads, each set by an option before it in the table. */
function readsOf(spec: TableOption, params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    (spec.reads ?? []).map((name) => {
      if (!Object.hasOwn(params, name))
        throw new Error(`--${spec.key} reads the parameter ${name}, which no option before it sets`);
      return [name, params[name]];
    }),
  );
}

/**
 * The run's parameters: the user's flags, else the scenario's defaults, else the table's. `given`
 * says whether the user set an option (command line or file) rather than leaving its default.
 * ExperimentParams is derived from the same table's entries, so each field is its entry's type.
 */
export function paramsOf(
  table: readonly TableOption[],
  flags: Readonly<Record<string, unknown>>,
  scenario: ScenarioInfo,
  given: (attribute: string) => boolean,
): ExperimentParams {
  const params: Record<string, unknown> = {};
  const info = { ...scenario, defaults: scenario.defaults ?? {} };
  for (const spec of table) {
    if (!spec.param) continue;
    const attribute = attributeOf(spec.key);
    const fallback = spec.scenarioDefault ? info.defaults[spec.param] : undefined;
    const flag = !given(attribute) && fallback !== undefined ? fallback : flags[attribute];
    const value = spec.toParam
      ? spec.toParam(flag, { scenario: info, given: given(attribute), params: readsOf(spec, params) })
      : flag;
    write(params, spec.param, value);
  }
  return params as ExperimentParams;
}

/** The parameters of a run given no flag: each option's default, the scenario's where it has one. */
export function defaultParams(table: readonly TableOption[], scenario: ScenarioInfo): ExperimentParams {
  const flags = Object.fromEntries(
    table.flatMap((o) => (o.default === undefined ? [] : [[attributeOf(o.key), o.default]])),
  );
  return paramsOf(table, flags, scenario, () => false);
}

/**
 * The flags that give exactly these parameters, by attribute, every one explicit (no scenario or
 * table default left to fill in, so a later change of a default does not change a re-run).
 */
export function flagsOf(table: readonly TableOption[], params: ExperimentParams): Record<string, unknown> {
  return Object.fromEntries(
    table.flatMap((spec) => {
      if (!spec.param) return [];
      const value = read(params, spec.param);
      const flag = spec.fromParam ? spec.fromParam(value, readsOf(spec, params)) : value;
      return flag === undefined ? [] : [[attributeOf(spec.key), flag]];
    }),
  );
}

/** The parameter columns of one group, in table order (record/run-row.ts places the groups). */
export function parameterColumns(
  table: readonly TableOption[],
  params: ExperimentParams,
  group: ColumnGroup,
): Record<string, string | number> {
  return Object.fromEntries(
    table.flatMap((spec) => {
      if (!spec.param || !spec.cellOf || spec.column?.group !== group) return [];
      return [[spec.column.name, spec.cellOf(read(params, spec.param))]];
    }),
  );
}
