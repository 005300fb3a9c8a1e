import type { NoResponseKind } from './k6-records.ts';
import { kindOfFortioError } from './fortio-errors.ts';
import { createFortioErrorIndex } from './fortio-error-index.ts';
import type { FortioErrorIndex } from './fortio-error-index.ts';

/**
 * fortio's output read as fortio writes it, one line at a time: its structured log (JSON lines on
 * stderr: one "err" line per call without a response, fhttp/http_client.go, and a "warn" line per
 * non-OK status) and its closing text. What the harness needs from it is kept in memory (every error
 * line's thread, time and kind for the records, the retries, the closing text); what goes to the run
 * folder's `fortio.log` is every line but the repeats of a line's shape past the first
 * {@link KEEP_PER_SHAPE}, which are counted: against a port that refuses connections at full speed
 * fortio logs one identical line per call, tens of thousands a second.
 */
export interface FortioLog {
  /** Takes one line of fortio's output; returns it when the condensed log keeps it. */
  add(line: string): string | undefined;
  /** The lines that close the condensed log: one per shape with repeats left out, with their count. */
  end(): string[];
  readonly errors: FortioErrorIndex;
  /** Calls fortio retried once on a new connection (countFortioRetries' meaning), by why. */
  readonly retried: Map<NoResponseKind, number>;
  /** fortio's text lines (its summary and histogram), as printed. */
  text(): string;
}

/** Lines of one shape written out as they are before the rest are only counted. */
export const KEEP_PER_SHAPE = 20;

interface FortioLogLine {
  ts?: number;
  level?: string;
  msg?: string;
  err?: unknown;
  code?: unknown;
  thread?: number;
}

interface Repeats {
  leftOut: number;
  firstTs: number;
  lastTs: number;
}

/**
 * A line's shape: its level, message and error with the parts that change from call to call (the
 * local port of a connection, `127.0.0.1:41234->`) masked; the time, run and thread are not part of it.
 */
export function shapeOf(entry: FortioLogLine, err: string): string {
  const code = entry.code === undefined ? '' : ` ${JSON.stringify(entry.code)}`;
  return `${entry.level ?? ''} ${entry.msg ?? ''}${code}: ${err.replace(/:\d+->/g, ':*->')}`;
}

function errText(err: unknown): string {
  return typeof err === 'string' ? err : JSON.stringify(err ?? '');
}

export function createFortioLog(): FortioLog {
  const errors = createFortioErrorIndex();
  const retried = new Map<NoResponseKind, number>();
  const seen = new Map<string, number>();
  const repeats = new Map<string, Repeats>();
  const text: string[] = [];
  const structured = (line: string): string | undefined => {
    let entry: FortioLogLine;
    try {
      entry = JSON.parse(line) as FortioLogLine;
    } catch {
      // A line that only starts like JSON: fortio's text; kept as it is.
      text.push(line);
      return line;
    }
    const err = errText(entry.err);
    const ts = typeof entry.ts === 'number' ? entry.ts : 0;
    if (entry.level === 'err' && typeof entry.thread === 'number' && typeof entry.ts === 'number') {
      const kind = kindOfFortioError(entry.msg ?? '', err);
      errors.add(entry.thread, entry.ts * 1000, kind, `${entry.msg ?? ''}: ${err}`.slice(0, 160));
    }
    if (entry.msg?.startsWith('Closing dead socket')) {
      const kind = kindOfFortioError('', err);
      retried.set(kind, (retried.get(kind) ?? 0) + 1);
    }
    const shape = shapeOf(entry, err);
    const count = (seen.get(shape) ?? 0) + 1;
    seen.set(shape, count);
    if (count <= KEEP_PER_SHAPE) return line;
    const r = repeats.get(shape);
    if (r) {
      r.leftOut++;
      r.lastTs = ts;
    } else repeats.set(shape, { leftOut: 1, firstTs: ts, lastTs: ts });
    return undefined;
  };
  return {
    add(line) {
      if (line.startsWith('{')) return structured(line);
      text.push(line);
      return line;
    },
    end() {
      return [...repeats].map(([shape, r]) =>
        JSON.stringify({
          level: 'info',
          msg: `harness: ${String(r.leftOut)} more lines of this shape left out of this file (counted, and read for the records)`,
          shape,
          kept: KEEP_PER_SHAPE,
          left_out: r.leftOut,
          first_ts: r.firstTs,
          last_ts: r.lastTs,
        }),
      );
    },
    errors,
    retried,
    text: () => text.join('\n'),
  };
}

/** A whole log at once (tests; a log read back from a file). */
export function readFortioLog(log: string): FortioLog {
  const reader = createFortioLog();
  for (const line of log.split('\n')) reader.add(line);
  return reader;
}
