import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * Live counts while k6 runs: reads what k6 has appended to the records file since the last poll
 * (one `start_ms,duration_ms,status,...` line per request) and counts ok / failed. For progress only;
 * the run's numbers come from the full read after k6 exits.
 */
export interface RecordsTail {
  poll(): Promise<{ ok: number; failed: number }>;
  close(): Promise<void>;
}

export function createRecordsTail(path: string, isOk: (status: number) => boolean): RecordsTail {
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
          const status = Number(line.split(',', 3)[2]);
          if (isOk(status)) counts.ok++;
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
