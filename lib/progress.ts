import type { Clock } from './clock.ts';

/**
 * Progress for long work: phase, elapsed and, when the total is known, an estimate of what is left.
 * On a terminal one line is rewritten; elsewhere (CI, pipes) a full line is printed at most every
 * `lineIntervalMs` so logs stay readable.
 */
export interface Progress {
  /** Reports `done` of `total` units (total may be an estimate) with a short detail. */
  update(detail: string, done?: number, total?: number): void;
  /** Ends the progress line with a final message. */
  finish(message: string): void;
}

export interface ProgressOptions {
  phase: string;
  clock: Clock;
  write?: (text: string) => void;
  isTty?: boolean;
  lineIntervalMs?: number;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${String(s)}s`;
  const m = Math.floor(s / 60);
  return `${String(m)}m${String(s % 60).padStart(2, '0')}s`;
}

export function createProgress(options: ProgressOptions): Progress {
  const { phase, clock } = options;
  const write = options.write ?? ((t: string) => process.stderr.write(t));
  const isTty = options.isTty ?? process.stderr.isTTY;
  const lineIntervalMs = options.lineIntervalMs ?? 10_000;
  const startMs = clock.now();
  let lastLineMs = -Infinity;
  let dirty = false;

  // The rate is measured from the first counted update, so an uncounted phase before it (a
  // download before a build) does not skew the estimate.
  let countedFrom: { ms: number; done: number } | undefined;

  const describe = (detail: string, done?: number, total?: number): string => {
    const nowMs = clock.now();
    let text = `${phase}: ${detail}, ${formatDuration(nowMs - startMs)} elapsed`;
    if (done === undefined || total === undefined) return text;
    countedFrom ??= { ms: nowMs, done };
    const rate = (done - countedFrom.done) / (nowMs - countedFrom.ms);
    if (rate > 0 && total > done) text += `, about ${formatDuration((total - done) / rate)} left`;
    return text;
  };

  return {
    update(detail, done, total) {
      const text = describe(detail, done, total);
      if (isTty) {
        write(`\r\x1b[2K${text}`);
        dirty = true;
      } else if (clock.now() - lastLineMs >= lineIntervalMs) {
        write(`${text}\n`);
        lastLineMs = clock.now();
      }
    },
    finish(message) {
      const text = `${phase}: ${message} (${formatDuration(clock.now() - startMs)})`;
      write(isTty && dirty ? `\r\x1b[2K${text}\n` : `${text}\n`);
      dirty = false;
    },
  };
}

/**
 * Calls `tick` every `intervalMs` on `clock` until the returned stop function is called (or the
 * signal aborts). For progress lines during work whose end is known only to someone else.
 */
export function startTicker(options: {
  clock: Clock;
  intervalMs: number;
  tick: () => void;
  signal?: AbortSignal;
}): () => void {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
  void (async () => {
    while (!signal.aborted) {
      try {
        await options.clock.sleep(options.intervalMs, signal);
      } catch {
        // Aborted: the ticker's only way out, nothing to report.
        return;
      }
      options.tick();
    }
  })();
  return () => {
    stop.abort();
  };
}
