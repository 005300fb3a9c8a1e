import { readFile } from 'node:fs/promises';
import { CsvError, parse } from 'csv-parse/sync';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import { SUMMARY_SCHEMA_VERSION } from '../run-row.ts';

/** The count columns compare tests (runs.csv, schema 2); `failed` is requests - ok. */
export const FAILURE_CLASSES = [
  'http_503',
  'reset',
  'refused',
  'timeout',
  'eof',
  'other_5xx',
  'other',
] as const;
export const LATENCY_COLUMNS = ['p50_ms', 'p99_ms'] as const;
export const COUNT_COLUMNS = ['requests', 'ok', ...FAILURE_CLASSES] as const;
/**
 * Schemas whose count and latency columns mean what compare tests: 2 and every later one (3 added
 * the gateway's concurrency and per-component CPU). Rows of different schemas have different parameter
 * columns, so they never fall into one configuration.
 */
const READABLE_SCHEMA_VERSIONS: readonly string[] = Array.from(
  { length: SUMMARY_SCHEMA_VERSION - 1 },
  (_, i) => String(i + 2),
);

const REQUIRED = ['schema_version', 'scenario', 'verdict', ...COUNT_COLUMNS, ...LATENCY_COLUMNS] as const;

export interface RunRow {
  /** Line of the CSV the row ends on (1 = header), for messages. */
  line: number;
  values: Record<string, string>;
  counts: Record<(typeof COUNT_COLUMNS)[number], number>;
  /** Missing when the run recorded none (an aborted run before load). */
  latency: Partial<Record<(typeof LATENCY_COLUMNS)[number], number>>;
}

function malformed(path: string, line: number, column: number | string, message: string): HarnessError {
  return new HarnessError(
    ErrorCode.BadInput,
    `${path}: line ${String(line)}, column ${String(column)}: ${message}; expected a runs.csv or summary.csv written by npm run experiment (schema_version ${String(SUMMARY_SCHEMA_VERSION)})`,
  );
}

/**
 * Reads a results CSV and checks every value compare relies on, naming the line and column
 * (1-based, column by number and header name) of the first bad one. Aborted runs are dropped: their
 * counts cover part of a run.
 */
export async function readRuns(path: string): Promise<RunRow[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new HarnessError(ErrorCode.BadInput, `Cannot read ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, { columns: true, info: true, skip_empty_lines: true });
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const where = err as CsvError & { lines?: number; column?: string | number };
    throw malformed(path, where.lines ?? 0, where.column ?? '?', err.message);
  }
  const [header = []]: string[][] = parse(text, { to_line: 1 });
  const columnOf = (name: string): string => `${String(header.indexOf(name) + 1)} (${name})`;
  for (const name of REQUIRED)
    if (!header.includes(name)) throw malformed(path, 1, name, `the header has no "${name}" column`);
  return records
    .map(({ record, info }) =>
      toRunRow(record, info.lines, (name, message) => malformed(path, info.lines, columnOf(name), message)),
    )
    .filter((row) => row.values['verdict'] !== 'aborted');
}

function toRunRow(
  values: Record<string, string>,
  line: number,
  fail: (column: string, message: string) => HarnessError,
): RunRow {
  if (!READABLE_SCHEMA_VERSIONS.includes(values['schema_version'] ?? ''))
    throw fail(
      'schema_version',
      `schema_version ${JSON.stringify(values['schema_version'])} is not one of ${READABLE_SCHEMA_VERSIONS.join(', ')}`,
    );
  if (!values['scenario']) throw fail('scenario', 'the scenario is empty');
  const counts = {} as RunRow['counts'];
  for (const name of COUNT_COLUMNS) {
    const raw = values[name] ?? '';
    if (!/^\d+$/.test(raw)) throw fail(name, `expected a non-negative integer, got ${JSON.stringify(raw)}`);
    counts[name] = Number(raw);
  }
  if (counts.ok > counts.requests)
    throw fail('ok', `ok (${String(counts.ok)}) exceeds requests (${String(counts.requests)})`);
  const latency: RunRow['latency'] = {};
  for (const name of LATENCY_COLUMNS) {
    const raw = values[name] ?? '';
    if (raw === '') continue;
    const ms = Number(raw);
    if (!Number.isFinite(ms) || ms < 0)
      throw fail(name, `expected milliseconds >= 0 or empty, got ${JSON.stringify(raw)}`);
    latency[name] = ms;
  }
  return { line, values, counts, latency };
}
