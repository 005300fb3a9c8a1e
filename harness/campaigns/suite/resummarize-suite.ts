import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
  const ran: RanEntry[] = [];
  for (const [i, entry] of suite.entries.entries()) {
    const dir = join(suiteDir, entryDirName(i, entry));
    const { rows, runDirs } = existsSync(dir) ? await entryRuns(dir) : { rows: [], runDirs: [] };
    ran.push({
      entry,
      rows,
      runDirs,
      // The backend the runs ran on, as their rows say.
      args: entryArgs(entry, rows.length || entry.repeats, rows[0]?.['backend']?.toString()),
      note: existsSync(dir) ? '' : 'not run',
    });
  }
  await summarizeSuite(suiteDir, suite.name, ran);
}
