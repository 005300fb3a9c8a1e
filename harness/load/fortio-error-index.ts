import type { NoResponseKind } from './k6-records.ts';

/**
 * fortio's error lines by thread, in time order, compact enough for a flood (one line per call at
 * tens of thousands of calls a second): per thread, parallel arrays of times and kinds, and the text
 * as an index into the distinct texts.
 */
export interface FortioErrorIndex {
  add(thread: number, atMs: number, kind: NoResponseKind, text: string): void;
  /**
   * Takes, for a call of `thread` that got no response, the first unused error line logged inside
   * [start, start + latency] (with {@link WINDOW_SLACK_MS} either side): a thread makes one call at a
   * time, so lines before the window (its warm-up's) can never match a later call and are passed.
   */
  take(
    thread: number,
    startMs: number,
    durationMs: number,
  ): { kind: NoResponseKind; text: string } | undefined;
  /** Error lines held. */
  readonly size: number;
}

/** Slack for fortio's log timestamp (microseconds, taken after the failure) against the record's. */
export const WINDOW_SLACK_MS = 50;

const KINDS: readonly NoResponseKind[] = ['refused', 'reset', 'eof', 'timeout', 'other'];

interface ThreadLines {
  at: number[];
  kind: number[];
  text: number[];
  /** The first line not yet taken or passed. */
  head: number;
}

export function createFortioErrorIndex(): FortioErrorIndex {
  const threads = new Map<number, ThreadLines>();
  const texts: string[] = [];
  const textIds = new Map<string, number>();
  let size = 0;
  const textId = (text: string): number => {
    let id = textIds.get(text);
    if (id === undefined) {
      id = texts.length;
      texts.push(text);
      textIds.set(text, id);
    }
    return id;
  };
  return {
    add(thread, atMs, kind, text) {
      let lines = threads.get(thread);
      if (!lines) {
        lines = { at: [], kind: [], text: [], head: 0 };
        threads.set(thread, lines);
      }
      // One goroutine writes a thread's lines, in order; a clock step back is placed where it belongs.
      let i = lines.at.length;
      while (i > 0 && (lines.at[i - 1] ?? 0) > atMs) i--;
      lines.at.splice(i, 0, atMs);
      lines.kind.splice(i, 0, KINDS.indexOf(kind));
      lines.text.splice(i, 0, textId(text));
      size++;
    },
    take(thread, startMs, durationMs) {
      const lines = threads.get(thread);
      if (!lines) return undefined;
      while (lines.head < lines.at.length && (lines.at[lines.head] ?? 0) < startMs - WINDOW_SLACK_MS)
        lines.head++;
      const at = lines.at[lines.head];
      if (at === undefined || at > startMs + durationMs + WINDOW_SLACK_MS) return undefined;
      const k = lines.head++;
      return { kind: KINDS[lines.kind[k] ?? 4] ?? 'other', text: texts[lines.text[k] ?? 0] ?? '' };
    },
    get size() {
      return size;
    },
  };
}
