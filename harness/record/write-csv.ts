import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

export type CsvRow = Record<string, string | number>;

/** Writes rows with a header taken from the first row's keys (every row must have the same keys). */
export async function writeCsv(path: string, rows: CsvRow[]): Promise<void> {
  const columns = Object.keys(rows[0] ?? {});
  await writeFile(path, stringify(rows, { header: true, columns }));
}

/**
 * Appends one row to a shared CSV (runs.csv), writing the header if the file is new. Refuses to mix
 * schemas: an existing file whose header differs is left alone and the caller is told why.
 */
export async function appendCsvRow(path: string, row: CsvRow): Promise<void> {
  const columns = Object.keys(row);
  if (!existsSync(path)) {
    await writeFile(path, stringify([row], { header: true, columns }));
    return;
  }
  await checkCsvHeader(path, columns);
  await appendFile(path, stringify([row], { header: false, columns }));
}

/** Every row of a CSV with a header, as objects; a missing file is no rows. */
export async function readCsvRows(path: string): Promise<CsvRow[]> {
  if (!existsSync(path)) return [];
  return parse<CsvRow>(await readFile(path, 'utf8'), { columns: true });
}

/** Throws (BadInput) when an existing CSV's header is not `columns`; a missing file is fine. */
export async function checkCsvHeader(path: string, columns: readonly string[]): Promise<void> {
  if (!existsSync(path)) return;
  const rows: unknown = parse(await readFile(path, 'utf8'), { to_line: 1 });
  const header = (rows as string[][])[0];
  if (header?.join(',') !== columns.join(','))
    throw new HarnessError(
      ErrorCode.BadInput,
      `${path} has a different header (another schema version?); move it aside or use another --results-dir`,
    );
}
