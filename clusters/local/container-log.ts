import { closeSync, fstatSync, openSync, readSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { appendedLines } from '../../lib/index.ts';

/**
 * A container's log file, as a container runtime keeps it: the process writes its stdout and stderr
 * straight into the file (the descriptor is handed over at spawn), so the harness is never on the
 * path of a busy container's output (the gateway's access log at thousands of lines a second). The
 * kubelet does not read container logs either; the harness follows a file only while it is looking
 * for something in it (the "started" line, a lifecycle line such as ztunnel's drain deadline).
 */

/** Opens `path` for appending and returns the descriptor to hand to the child as stdout and stderr. */
export function openContainerLog(path: string): number {
  return openSync(path, 'a');
}

export interface LogFollower {
  /** Reads what is left and stops following (idempotent). */
  stop(): Promise<void>;
}

/**
 * Calls `onLine` for every complete line appended to `path` from its current start, woken by inotify
 * (fs.watch) rather than a poll. `onLine` returns false when it has seen what it wanted: following
 * stops there and nothing more is read. One read runs at a time; a change seen during a read is
 * picked up by the next one.
 */
export function followLog(path: string, onLine: (line: string) => boolean): LogFollower {
  const log = appendedLines(path);
  let watcher: FSWatcher | undefined;
  let stopped = false;
  // A function, so a check after an await is not narrowed away: finish() may run meanwhile.
  const isStopped = (): boolean => stopped;
  let reading: Promise<void> | undefined;
  let again = false;

  const readNew = async (): Promise<void> => {
    for (let lines = await log.next(); lines; lines = await log.next()) {
      if (stopped) return;
      for (const line of lines) {
        if (onLine(line)) continue;
        finish();
        return;
      }
    }
  };
  const kick = (): void => {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = readNew()
      .catch(() => {
        // The file vanished or could not be read: nothing more to follow; the caller's exit handling
        // reports the container itself.
        finish();
      })
      .finally(() => {
        reading = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  const finish = (): void => {
    stopped = true;
    watcher?.close();
    watcher = undefined;
  };
  watcher = watch(path, { persistent: false }, kick);
  watcher.on('error', finish);
  kick();
  return {
    async stop() {
      if (!isStopped()) {
        // One last read for lines written just before the caller decided to stop (e.g. at exit).
        await reading;
        if (!isStopped()) {
          again = false;
          kick();
          await reading;
        }
      }
      finish();
      await reading;
      await log.close();
    },
  };
}

/** The last `maxLines` lines of a log file (at most its last 256 KiB), oldest first; [] if unreadable. */
export function readLogTail(path: string, maxLines: number): string[] {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (length < size) lines.shift(); // the first line is cut
    return lines.slice(-maxLines);
  } catch {
    // A log that cannot be read (never created, removed with the cluster) has no lines to show.
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
