import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

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
  let handle: FileHandle | undefined;
  let offset = 0;
  let partial = '';
  const counts = { ok: 0, failed: 0 };
  const buffer = Buffer.alloc(1 << 20);
  return {
    async poll() {
      // The file appears when k6 starts writing; until then there is nothing to count.
      handle ??= await open(path, 'r').catch(() => undefined);
      if (!handle) return { ...counts };
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        const lines = (partial + buffer.toString('utf8', 0, bytesRead)).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line === '') continue;
          if (isOkLine(line)) counts.ok++;
          else counts.failed++;
        }
      }
      return { ...counts };
    },
    async close() {
      await handle?.close();
    },
  };
}
