import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { flagsToArgs } from './flags-to-args.ts';
import { SEED_SUITE } from './seed-suite.ts';
import { entryDirName, entryRuns, summarizeSuite } from './summarize-suite.ts';
import type { RanEntry } from './summarize-suite.ts';

/** Rebuilds a seed-suite folder's table and suite.html from the runs in it (e.g. after a change to the report). */
export async function resummarizeSuite(suiteDir: string): Promise<void> {
  const ran: RanEntry[] = [];
  for (const [i, entry] of SEED_SUITE.entries()) {
    const dir = join(suiteDir, entryDirName(i, entry));
    const { rows, runDirs } = existsSync(dir) ? await entryRuns(dir) : { rows: [], runDirs: [] };
    ran.push({
      entry,
      rows,
      runDirs,
      args: flagsToArgs({ ...entry.flags, repeat: rows.length || entry.repeats }),
      note: existsSync(dir) ? '' : 'not run',
    });
  }
  await summarizeSuite(suiteDir, 'seeds', ran);
}
