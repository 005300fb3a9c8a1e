import type { NoResponseKind } from './k6-records.ts';

/**
 * fortio logs one error line per request that got no response (fhttp/http_client.go: "Unable to
 * connect", "Read error", "Timeout error (incomplete/invalid response)", "Unable to write", ...), as
 * structured JSON on stderr: `{"ts":1795520420.253973,"level":"err",...,"msg":"Unable to connect",
 * "err":"dial tcp ...: connect: connection refused","thread":0,...}`. Its access log says only
 * `"details":"-1"` for such a request, so the error line of the same thread inside the request's time
 * window tells refused from reset, EOF and timeout.
 */
export interface FortioError {
  thread: number;
  atMs: number;
  kind: NoResponseKind;
  text: string;
}

/** The class of a fortio error: by the Go error text, as the kernel or Go's net package words it. */
export function kindOfFortioError(msg: string, err: string): NoResponseKind {
  const text = `${msg} ${err}`;
  if (/connection refused/.test(text)) return 'refused';
  if (/connection reset by peer|broken pipe/.test(text)) return 'reset';
  if (/timeout|deadline exceeded/i.test(text)) return 'timeout';
  if (/\bEOF\b/.test(text)) return 'eof';
  return 'other';
}

/** The error lines of fortio's log (everything else in it is ignored), by thread in time order. */
export function parseFortioErrors(log: string): Map<number, FortioError[]> {
  const byThread = new Map<number, FortioError[]>();
  for (const line of log.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"level":"err"')) continue;
    let entry: { ts?: number; thread?: number; msg?: string; err?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // not one of fortio's structured lines: its text summary shares the stream
    }
    if (typeof entry.thread !== 'number' || typeof entry.ts !== 'number') continue;
    const err = typeof entry.err === 'string' ? entry.err : JSON.stringify(entry.err ?? '');
    const list = byThread.get(entry.thread) ?? [];
    list.push({
      thread: entry.thread,
      atMs: entry.ts * 1000,
      kind: kindOfFortioError(entry.msg ?? '', err),
      text: `${entry.msg ?? ''}: ${err}`.slice(0, 160),
    });
    byThread.set(entry.thread, list);
  }
  for (const list of byThread.values()) list.sort((a, b) => a.atMs - b.atMs);
  return byThread;
}

/**
 * Calls fortio retried, invisibly in its counts: its fast client retries a call once on a new
 * connection when a reused connection fails before the first byte of the answer ("Closing dead
 * socket", fhttp/http_client.go StreamFetch and readResponse), logged at info level. The retried call
 * is counted once, by the outcome of the retry; the first attempt is a failure only the server side
 * (the gateway's log) saw. By why the first attempt failed.
 */
export function countFortioRetries(log: string): Map<NoResponseKind, number> {
  const byKind = new Map<NoResponseKind, number>();
  for (const line of log.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"msg":"Closing dead socket')) continue;
    const err = /"err":"([^"]*)"/.exec(line)?.[1] ?? '';
    const kind = kindOfFortioError('', err);
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  return byKind;
}

/** Slack for fortio's log timestamp (microseconds, taken after the failure) against the record's. */
const WINDOW_SLACK_MS = 50;

/**
 * Takes, for a request of `thread` that got no response, the first unused error line logged inside
 * [start, start + latency]: a thread makes one request at a time, so lines before the window (its
 * warm-up's) can never match a later request and are dropped.
 */
export function takeFortioError(
  errors: Map<number, FortioError[]>,
  thread: number,
  startMs: number,
  durationMs: number,
): FortioError | undefined {
  const list = errors.get(thread);
  while (list && list.length > 0 && (list[0]?.atMs ?? 0) < startMs - WINDOW_SLACK_MS) list.shift();
  const head = list?.[0];
  if (!head || head.atMs > startMs + durationMs + WINDOW_SLACK_MS) return undefined;
  list.shift();
  return head;
}
