import { appendedLines } from '../../lib/index.ts';

/**
 * Live counts while the generator runs: reads what it has appended to its records file since the
 * last poll (one line per request) and counts ok / failed. For progress only;
 * the run's numbers come from the full read after k6 exits.
 */
export interface RecordsTail {
  poll(): Promise<{ ok: number; failed: number }>;
  close(): Promise<void>;
}

/** Whether a records line is an OK request: k6's CSV (status is its third field) or fortio's JSON line. */
export type RecordLineOk = (line: string) => boolean;

export const k6LineOk =
  (isOk: (status: number) => boolean): RecordLineOk =>
  (line) =>
    isOk(Number(line.split(',', 3)[2]));

/** fortio's own verdict per call (fhttp codeIsOK: 2xx and 418). */
export const fortioLineOk: RecordLineOk = (line) => line.includes('"ok":true');

export function createRecordsTail(path: string, isOkLine: RecordLineOk): RecordsTail {
  // The file appears when the generator starts writing; until then there is nothing to count.
  const records = appendedLines(path, { bufferBytes: 1 << 20, missing: 'wait' });
  const counts = { ok: 0, failed: 0 };
  return {
    async poll() {
      for (let lines = await records.next(); lines; lines = await records.next())
        for (const line of lines) {
          if (line === '') continue;
          if (isOkLine(line)) counts.ok++;
          else counts.failed++;
        }
      return { ...counts };
    },
    close: () => records.close(),
  };
}
