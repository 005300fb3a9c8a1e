import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * The lines a process appends to a file, read as they come: each call reads on from where the last
 * stopped, one buffer at a time, and hands over the complete lines (a last line without its newline
 * waits for the rest). The container logs a kubelet follows and the generators' records files both
 * read this way.
 */
export interface AppendedLines {
  /**
   * The complete lines in the next chunk appended since the last call ([] when that chunk ends
   * inside a line); undefined when nothing more has been written for now, or when the file does
   * not exist yet and `missing: 'wait'`.
   */
  next(): Promise<string[] | undefined>;
  close(): Promise<void>;
}

export function appendedLines(
  path: string,
  options: { bufferBytes?: number; missing?: 'wait' | 'throw' } = {},
): AppendedLines {
  let handle: FileHandle | undefined;
  let offset = 0;
  let partial = '';
  const buffer = Buffer.alloc(options.bufferBytes ?? 64 * 1024);
  return {
    async next() {
      handle ??=
        options.missing === 'wait' ? await open(path, 'r').catch(() => undefined) : await open(path, 'r');
      if (!handle) return undefined;
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) return undefined;
      offset += bytesRead;
      const lines = (partial + buffer.toString('utf8', 0, bytesRead)).split('\n');
      partial = lines.pop() ?? '';
      return lines;
    },
    async close() {
      const h = handle;
      handle = undefined;
      await h?.close();
    },
  };
}
