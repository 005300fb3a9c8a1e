import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file a check command (calibrate, load-smoke) leaves in its run folder, however it ended. */
export const VERDICT_FILE = 'verdict.json';

export interface CommandVerdict {
  command: string;
  /** pass / fail: the check ran and says so; aborted: it could not finish (the reason says why). */
  verdict: 'pass' | 'fail' | 'aborted';
  reason: string;
}

export async function writeCommandVerdict(runDir: string, verdict: CommandVerdict): Promise<void> {
  await writeFile(join(runDir, VERDICT_FILE), `${JSON.stringify(verdict, null, 2)}\n`);
}

/**
 * Runs a check whose folder exists already; when it throws (a generator failed, Ctrl-C), the folder
 * is marked aborted with the error's message before the error goes on.
 */
export async function markAbortedOnError<T>(
  runDir: string,
  command: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await writeCommandVerdict(runDir, { command, verdict: 'aborted', reason });
    throw err;
  }
}
