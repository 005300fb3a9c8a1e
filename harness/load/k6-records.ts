import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** Why a request got no response, when the generator's own record says (fortio's error log). */
export type NoResponseKind = 'refused' | 'reset' | 'eof' | 'timeout' | 'other';

/**
 * One request as the generator recorded it: the k6 script's line (k6-scripts/load.ts), or fortio's
 * access-log line joined with its error log (fortio-records.ts).
 */
export interface RequestRecord {
  /** The generator's wall clock (Unix ms) at request start. */
  startWallMs: number;
  durationMs: number;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** k6's error code: 0, 1xxx-2xxx for network errors, 1000+status for HTTP 4xx/5xx. */
  errorCode: number;
  /** The LOAD_FLAG_HEADER value, '' when none. */
  flag: string;
  /** k6's error text when status is 0. */
  error: string;
  /** fortio: why there was no response (status 0), from its error log; k6 says it by errorCode. */
  noResponse?: NoResponseKind;
}

const COLUMNS = ['startWallMs', 'durationMs', 'status', 'errorCode', 'flag', 'error'] as const;

/** Streams the records file; `onRecord` sees each request once, in file order. Returns the count. */
export async function readK6Records(
  path: string,
  onRecord: (record: RequestRecord) => void,
): Promise<number> {
  const parser = createReadStream(path).pipe(
    parse({ columns: [...COLUMNS], relax_quotes: true, trim: false }),
  );
  let count = 0;
  try {
    for await (const row of parser as AsyncIterable<Record<(typeof COLUMNS)[number], string>>) {
      onRecord(toRecord(row, count + 1, path));
      count++;
    }
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    throw new HarnessError(ErrorCode.LoadFailed, `could not read k6 records from ${path}`, { cause: err });
  }
  return count;
}

function toRecord(row: Record<(typeof COLUMNS)[number], string>, line: number, path: string): RequestRecord {
  const record = {
    startWallMs: Number(row.startWallMs),
    durationMs: Number(row.durationMs),
    status: Number(row.status),
    errorCode: Number(row.errorCode),
    flag: row.flag,
    error: row.error,
  };
  const numbers = [record.startWallMs, record.durationMs, record.status, record.errorCode];
  if (row.startWallMs === '' || !numbers.every(Number.isFinite)) {
    throw new HarnessError(
      ErrorCode.LoadFailed,
      `${path}:${String(line)} is not a k6 request record: ${JSON.stringify(row)}; was the script's console output mixed with other logs?`,
    );
  }
  return record;
}
