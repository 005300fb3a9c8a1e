// A suite entry's shape rule, as data (suites/*.yaml): whether our runs show the document's shape.
// Conditions are `<column> <op> <number>` or `<column> <op> <column> [+|- <number>]`, over the
// summary row's columns plus the derived ones below, in three scopes:
//   every_run: each run's row on its own;
//   median:    the median over the entry's runs (a column on the right is this entry's median too);
//   against:   this entry's median (left) against another configuration's median (right).
import { median } from '../../../lib/median.ts';

export type Row = Record<string, string | number>;

const OPS = {
  '==': (a: number, b: number) => a === b,
  '!=': (a: number, b: number) => a !== b,
  '<=': (a: number, b: number) => a <= b,
  '>=': (a: number, b: number) => a >= b,
  '<': (a: number, b: number) => a < b,
  '>': (a: number, b: number) => a > b,
} as const;
type Op = keyof typeof OPS;

const num = (r: Row, k: string): number => Number(r[k]);

/** Columns computed from a row's own columns, usable in conditions as if they were columns. */
export const DERIVED_COLUMNS: Readonly<Record<string, (r: Row) => number>> = {
  /** Requests that did not get a 2xx. */
  failed: (r) => num(r, 'requests') - num(r, 'ok'),
  /** Istio's restart tests' figure: the share of calls that got a 2xx (none without requests). */
  success_rate: (r) => num(r, 'ok') / num(r, 'requests'),
  /** Cilium's NoInterruptedConnections: long-lived connections ended by the peer (FIN or RST). */
  long_lived_interrupted: (r) => num(r, 'long_lived_fin') + num(r, 'long_lived_reset'),
  /** E5: new HBONE connections per app connection while the server pod terminated. */
  per_app_connection: (r) =>
    num(r, 'hbone_opened_while_terminating') / Math.max(1, num(r, 'app_connections_while_terminating')),
};

export const valueOf = (r: Row, column: string): number => DERIVED_COLUMNS[column]?.(r) ?? num(r, column);

export interface Condition {
  text: string;
  left: string;
  op: Op;
  /** A column (plus offset) or, without one, the number `offset`. */
  right: { column?: string; offset: number };
}

export interface ShapeRule {
  everyRun: Condition[];
  median: Condition[];
  against?: { configuration: string; median: Condition[] };
}

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const CONDITION = new RegExp(
  String.raw`^([a-z_][a-z0-9_]*)\s*(==|!=|<=|>=|<|>)\s*(?:(${NUMBER})|([a-z_][a-z0-9_]*)(?:\s*([+-])\s*(${NUMBER}))?)$`,
);

/**
 * One condition from its text; throws naming what is wrong (an unknown column among `columns`, the
 * syntax) so a suite file with a typo is refused before anything runs.
 */
export function parseCondition(text: string, columns: ReadonlySet<string>): Condition {
  const m = CONDITION.exec(text.trim());
  if (!m)
    throw new Error(`"${text}" is not "<column> <op> <number>" or "<column> <op> <column> [+|- <number>]"`);
  const [, left = '', op = '==', value, column, sign, offset] = m;
  for (const name of [left, column])
    if (name !== undefined && !columns.has(name) && !(name in DERIVED_COLUMNS))
      throw new Error(`"${text}": no column "${name}" in this entry's rows`);
  return {
    text,
    left,
    op: op as Op,
    right:
      column === undefined
        ? { offset: Number(value) }
        : { column, offset: (sign === '-' ? -1 : 1) * Number(offset ?? 0) },
  };
}

/** The condition on `left`, its right-hand column read by `read` (absent: the number alone). */
const holds = (c: Condition, left: number, read: (column: string) => number): boolean =>
  OPS[c.op](left, (c.right.column === undefined ? 0 : read(c.right.column)) + c.right.offset);

const medianOf = (rows: readonly Row[], column: string): number =>
  median(rows.map((r) => valueOf(r, column)));

/**
 * Whether the rows show the shape; `all` maps configuration -> rows of every entry of the suite. A
 * configuration compared against that has no rows fails the rule (there is nothing to hold against).
 */
export function judgeShape(rule: ShapeRule, rows: readonly Row[], all: ReadonlyMap<string, Row[]>): boolean {
  const everyRun = rule.everyRun.every((c) =>
    rows.every((r) => holds(c, valueOf(r, c.left), (k) => valueOf(r, k))),
  );
  const ownMedian = rule.median.every((c) => holds(c, medianOf(rows, c.left), (k) => medianOf(rows, k)));
  if (!everyRun || !ownMedian || !rule.against) return everyRun && ownMedian;
  const base = all.get(rule.against.configuration);
  if (!base?.length) return false;
  return rule.against.median.every((c) => holds(c, medianOf(rows, c.left), (k) => medianOf(base, k)));
}

/**
 * The columns the rule reads that some of the rows leave empty: a backend that does not measure them
 * (kind has no SIGTERM timestamps for bursts_after_sigterm). The shape cannot be judged on those rows,
 * which is not the same as the shape failing.
 */
export function blankColumns(rule: ShapeRule, rows: readonly Row[]): string[] {
  const conditions = [...rule.everyRun, ...rule.median, ...(rule.against?.median ?? [])];
  const read = new Set(
    conditions.flatMap((c) => [c.left, ...(c.right.column === undefined ? [] : [c.right.column])]),
  );
  return [...read].filter(
    (k) => !(k in DERIVED_COLUMNS) && rows.some((r) => r[k] === undefined || r[k] === ''),
  );
}
