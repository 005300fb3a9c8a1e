import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { backendRefusal, DEFAULT_BACKEND } from './entry-availability.ts';
import { entryArgs } from './run-suite.ts';
import { loadSuite, SUITE_FILE } from './suite-file.ts';
import { entryDirName, entryRuns, summarizeSuite } from './summarize-suite.ts';
import type { RanEntry } from './summarize-suite.ts';

/**
 * Rebuilds a suite folder's table and suite.html from the runs in it (e.g. after a change to the
 * report), judged by the suite file the folder holds (a folder from before suite files: the seeds).
 */
export async function resummarizeSuite(suiteDir: string): Promise<void> {
  const own = join(suiteDir, SUITE_FILE);
  const suite = await loadSuite(existsSync(own) ? own : 'seeds');
  const found = await Promise.all(
    suite.entries.map(async (entry, i) => {
      const dir = join(suiteDir, entryDirName(i, entry));
      return { entry, dir, ...(existsSync(dir) ? await entryRuns(dir) : { rows: [], runDirs: [] }) };
    }),
  );
  // The backend the suite ran on, as its rows say; an entry with no folder is said why as it was then.
  const backend = found.flatMap((f) => f.rows)[0]?.['backend']?.toString() ?? DEFAULT_BACKEND;
  const ran: RanEntry[] = found.map(({ entry, dir, rows, runDirs }) => ({
    entry,
    rows,
    runDirs,
    args: entryArgs(entry, rows.length || entry.repeats, backend),
    note: existsSync(dir) ? '' : backendRefusal(entry, backend) || 'not run',
  }));
  await summarizeSuite(suiteDir, suite.name, ran);
}
