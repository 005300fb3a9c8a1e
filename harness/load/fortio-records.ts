import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { FortioErrorIndex } from './fortio-error-index.ts';
import type { RequestRecord } from './k6-records.ts';

interface FortioAccessLine {
  latency: number;
  timestamp: number;
  thread: number;
  ok: boolean;
  details: string;
}

function parseLine(line: string, lineNo: number, path: string): FortioAccessLine {
  try {
    const entry = JSON.parse(line) as FortioAccessLine;
    if (
      typeof entry.latency === 'number' &&
      typeof entry.timestamp === 'number' &&
      typeof entry.details === 'string'
    )
      return entry;
  } catch {
    // reported below with the line
  }
  throw new HarnessError(
    ErrorCode.LoadFailed,
    `${path}:${String(lineNo)} is not a fortio access-log line: ${JSON.stringify(line.slice(0, 200))}`,
  );
}

/**
 * Streams fortio's access log (`-access-log-file`, JSON lines, one per call, warm-up excluded:
 * periodic/periodic.go fileAccessLogger) as request records; `details` is the HTTP status, -1 for a
 * request without a response, whose kind comes from fortio's error lines (`errors`, read from its log
 * as it ran: fortio-log.ts). Timestamps
 * are fortio's wall clock in ns at the call's start; latency is seconds. Returns the count.
 */
export async function readFortioRecords(
  accessLogPath: string,
  errors: FortioErrorIndex,
  onRecord: (record: RequestRecord) => void,
): Promise<number> {
  const lines = createInterface({ input: createReadStream(accessLogPath), crlfDelay: Infinity });
  let count = 0;
  for await (const line of lines) {
    if (line === '') continue;
    const entry = parseLine(line, count + 1, accessLogPath);
    const startWallMs = entry.timestamp / 1e6;
    const durationMs = entry.latency * 1000;
    const status = entry.details === '-1' ? 0 : Number(entry.details);
    const record: RequestRecord = { startWallMs, durationMs, status, errorCode: 0, flag: '', error: '' };
    if (status === 0) {
      const error = errors.take(entry.thread, startWallMs, durationMs);
      record.noResponse = error?.kind ?? 'other';
      record.error = error?.text ?? 'fortio -1: no response, no error line found';
    }
    onRecord(record);
    count++;
  }
  return count;
}
