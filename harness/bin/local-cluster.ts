// `npm run local-cluster`: the embedded local cluster for manual poking (harness/cli/local-cluster.ts).
import { Command } from 'commander';
import { addLocalClusterOptions, runLocalCluster } from '../cli/local-cluster.ts';
import type { UpFlags } from '../cli/local-cluster.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';

runMain(async (signal) => {
  let flags: UpFlags | undefined;
  addLocalClusterOptions(
    addVersionOption(
      new Command('local-cluster').description(
        'The embedded local cluster: bring it up and keep it running until Ctrl-C.',
      ),
    ),
  )
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .action((f: UpFlags) => {
      flags = f;
    })
    .parse(process.argv);
  if (!flags) return 0; // help was printed
  return runLocalCluster(flags, signal);
});
