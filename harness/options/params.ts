// Flags <-> parameters, both ways, from the option table: each entry names its parameter field (arms
// under `arms.`), how a flag becomes it and back. No option is mapped by hand.
import type { ExperimentParams } from './experiment-params.ts';
import type { ExperimentFlags } from './experiment-options.ts';
import { attributeOf } from './option.ts';
import type { ColumnGroup, ColumnRole, OptionSpec } from './option.ts';

export interface ScenarioInfo {
  name: string;
  defaults?: Readonly<Record<string, unknown>>;
  defaultMaxFailed: number;
}

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

/**
 * The run's parameters: the user's flags, else the scenario's defaults, else the table's. `given`
 * says whether the user set an option (command line or file) rather than leaving its default.
 */
export function paramsOf(
  table: readonly OptionSpec[],
  flags: ExperimentFlags,
  scenario: ScenarioInfo,
  given: (attribute: string) => boolean,
): ExperimentParams {
  const params: Record<string, unknown> = {};
  const defaults = scenario.defaults ?? {};
  for (const spec of table) {
    if (!spec.param) continue;
    const attribute = attributeOf(spec.key);
    const field = spec.param;
    const fallback = spec.scenarioDefault ? defaults[field] : undefined;
    const flag = !given(attribute) && fallback !== undefined ? fallback : flags[attribute];
    const value = spec.toParam
      ? spec.toParam(flag, {
          flags,
          scenario: { name: scenario.name, defaults, defaultMaxFailed: scenario.defaultMaxFailed },
          given: given(attribute),
          params,
        })
      : flag;
    write(params, field, value);
  }
  return params as unknown as ExperimentParams;
}

/**
 * The flags that give exactly these parameters, by attribute, every one explicit (no scenario or
 * table default left to fill in, so a later change of a default does not change a re-run).
 */
export function flagsOf(table: readonly OptionSpec[], params: ExperimentParams): Record<string, unknown> {
  const p = params as unknown as Record<string, unknown>;
  return Object.fromEntries(
    table.flatMap((spec) => {
      if (!spec.param) return [];
      const value = read(p, spec.param);
      const flag = spec.fromParam ? spec.fromParam(value, p) : value;
      return flag === undefined ? [] : [[attributeOf(spec.key), flag]];
    }),
  );
}

/** The parameter columns of one group, in table order (results/run-row.ts places the groups). */
export function parameterColumns(
  table: readonly OptionSpec[],
  params: ExperimentParams,
  group: ColumnGroup,
): Record<string, string | number> {
  const p = params as unknown as Record<string, unknown>;
  return Object.fromEntries(
    table.flatMap((spec) => {
      if (!spec.param || spec.column?.group !== group) return [];
      const value = read(p, spec.param);
      const cell = spec.column.render ? spec.column.render(value) : value;
      return [[spec.column.name, cell as string | number]];
    }),
  );
}

/** Each option column's role and the value older rows (without it) ran with. */
export function optionColumnRoles(
  table: readonly OptionSpec[],
): Map<string, { role: ColumnRole; olderRowsRan?: string }> {
  return new Map(
    table.flatMap((spec) =>
      spec.column
        ? [
            [
              spec.column.name,
              {
                role: spec.column.role ?? 'parameter',
                ...(spec.column.added ? { olderRowsRan: spec.column.added.olderRowsRan } : {}),
              },
            ] as const,
          ]
        : [],
    ),
  );
}

/** The newest schema version an option's column was added in (0 when none declares one). */
export function newestOptionColumn(table: readonly OptionSpec[]): number {
  return Math.max(0, ...table.map((spec) => spec.column?.added?.since ?? 0));
}
