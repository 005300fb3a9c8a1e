// `npm run report -- <run folder>...`: (re)draws timeline.svg and report.html from a run folder's
// CSVs, e.g. for runs made before the report existed or copied from another machine. A seed-suite
// folder (one with suite.csv) gets its table and suite.html rebuilt from the runs in it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { BUCKET_MS } from '../run/run-cluster-experiment.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';
import { readRunFolder } from '../record/report/read-run-folder.ts';
import { writeRunReport } from '../record/report/write-run-report.ts';
import { resummarizeSuite } from '../campaigns/suite/resummarize-suite.ts';

runMain(async () => {
  const program = addVersionOption(
    new Command('report').description('Draw report.html (timeline plot + tables) for run folders'),
  )
    .argument('<run-dir...>', 'run folders written by npm run experiment')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  for (const runDir of program.args) {
    if (existsSync(join(runDir, 'suite.csv'))) {
      await resummarizeSuite(runDir);
      continue;
    }
    const folder = await readRunFolder(runDir);
    const path = await writeRunReport({ runDir, ...folder, bucketMs: BUCKET_MS });
    process.stdout.write(`${path}\n`);
  }
  return 0;
});
