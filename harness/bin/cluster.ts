// `npm run cluster`: your cluster, the one `--backend cluster` runs on. `check`: whether it has what
// the experiments need there (Istio ambient, the gateway, your permissions), read-only
// (clusters/cluster/); `cleanup`: what runs left there, listed, and deleted with --yes; `rbac`: the
// roles a run needs there. `up`, the embedded local cluster, is `npm run local-cluster` now; this name
// still works for one release and says so.
import { Command } from 'commander';
import type { Option } from 'commander';
import { CLUSTER_PROVIDER } from '../../clusters/cluster/provider.ts';
import type { Flag } from '../../lib/index.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { addLocalClusterOptions, runLocalCluster } from '../cli/local-cluster.ts';
import type { UpFlags } from '../cli/local-cluster.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';
import { checkExistingCluster } from '../../clusters/cluster/check-cluster.ts';
import type { CheckFlags } from '../../clusters/cluster/check-cluster.ts';
import { cleanupExistingCluster } from '../../clusters/cluster/cleanup.ts';
import type { CleanupFlags } from '../../clusters/cluster/cleanup.ts';
import { printRbac } from '../../clusters/cluster/print-rbac.ts';
import type { RbacFlags } from '../../clusters/cluster/print-rbac.ts';

// `cleanup`'s own options.
const YES: Flag<boolean> = { key: 'yes', description: 'delete what is listed as left', default: false };
const RUN: Flag<string> = {
  key: 'run',
  arg: '<namespace>',
  description: 'only this run, deleted even before its lease lapses (you know it is over)',
};
const DRY_RUN: Flag<boolean> = {
  key: 'dry-run',
  description: 'list only (the default without --yes)',
  default: false,
};

// `rbac`'s own options.
const SERVICE_ACCOUNT: Flag<string> = {
  key: 'service-account',
  arg: '<namespace/name>',
  description: 'bind the roles to this ServiceAccount',
};
const USER: Flag<string> = { key: 'user', arg: '<name>', description: 'bind the roles to this user' };
/** A negated switch: commander sets `e1` true unless it is given. */
const NO_E1: Flag<boolean> = {
  key: 'no-e1',
  description: "leave out E1's Role (the ztunnel DaemonSet's restart)",
};

/**
 * An existing cluster's option as its backend declares it (clusters/cluster/provider.ts): the same
 * flag, help and default for `experiment --backend cluster` and these commands. The command's own
 * function parses the value (check-cluster.ts, cleanup.ts, print-rbac.ts), with the same parsers.
 */
function existingClusterOption(key: string): Option {
  const declared = CLUSTER_PROVIDER.options.find((o) => o.key === key);
  if (!declared) throw new Error(`the cluster backend declares no option ${key}`);
  return commanderOption({
    ...declared,
    description: declared.description.replace(/^cluster: /, ''),
    parse: undefined,
  });
}

function buildProgram(
  run: (flags: UpFlags) => void,
  check: (flags: CheckFlags) => void,
  cleanup: (flags: CleanupFlags) => void,
  rbac: (flags: RbacFlags) => void,
): Command {
  const program = addVersionOption(
    new Command('cluster').description(
      'Your cluster (--backend cluster): check it, clean up after runs, the roles a run needs.',
    ),
  ).exitOverride();
  addLocalClusterOptions(
    program
      .command('up')
      .description(
        'the embedded local cluster: now `npm run local-cluster` (this name works one more release)',
      ),
  )
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .action((flags: UpFlags) => {
      run(flags);
    });
  program
    .command('check')
    .description(
      'read-only: whether an existing cluster has what the experiments need there (Istio ambient, the gateway, your permissions)',
    )
    .addOption(existingClusterOption('kubeconfig'))
    .addOption(existingClusterOption('context'))
    .addOption(existingClusterOption('istio-namespace'))
    .addOption(existingClusterOption('gateway'))
    .addOption(existingClusterOption('allow-ztunnel-restart'))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .action((flags: CheckFlags) => {
      check(flags);
    });
  program
    .command('cleanup')
    .description(
      "an existing cluster: list the namespaces runs left (every mark of a run's and its lease lapsed), delete them with --yes",
    )
    .addOption(existingClusterOption('kubeconfig'))
    .addOption(existingClusterOption('context'))
    .addOption(commanderOption(YES))
    .addOption(commanderOption(RUN))
    .addOption(commanderOption(DRY_RUN))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .action((flags: CleanupFlags) => {
      cleanup(flags);
    });
  program
    .command('rbac')
    .description(
      'print the roles a run needs on an existing cluster (YAML for kubectl apply): what `check` reviews',
    )
    .addOption(existingClusterOption('istio-namespace'))
    .addOption(existingClusterOption('gateway'))
    .addOption(commanderOption(SERVICE_ACCOUNT))
    .addOption(commanderOption(USER))
    .addOption(commanderOption(NO_E1))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .action((flags: RbacFlags) => {
      rbac(flags);
    });
  return program;
}

/** What `cluster up` says before it runs: the command's new name. */
const LOCAL_CLUSTER_MOVED =
  'cluster: `npm run cluster -- up` is now `npm run local-cluster` (same options); this name works until the next release\n';

runMain(async (signal) => {
  // Said before the options are read, so a mistyped option under the old name says it too.
  if (process.argv[2] === 'up') process.stderr.write(LOCAL_CLUSTER_MOVED);
  let flags: UpFlags | undefined;
  let checkFlags: CheckFlags | undefined;
  let cleanupFlags: CleanupFlags | undefined;
  let rbacFlags: RbacFlags | undefined;
  buildProgram(
    (f) => (flags = f),
    (f) => (checkFlags = f),
    (f) => (cleanupFlags = f),
    (f) => (rbacFlags = f),
  ).parse(process.argv);
  if (rbacFlags) return printRbac(rbacFlags, process.stdout);
  if (checkFlags) return checkExistingCluster(checkFlags, process.stdout);
  if (cleanupFlags) return cleanupExistingCluster(cleanupFlags, process.stdout);
  if (!flags) return 0; // help was printed
  return runLocalCluster(flags, signal);
});
