// `npm run cluster -- up`: the local cluster for manual poking. Brings up the nodes, control plane,
// ztunnel DaemonSet and httpbin, prints the addresses, streams lifecycle events, and tears
// everything down on Ctrl-C. `npm run cluster -- check`: whether an existing cluster (yours, with
// Istio ambient) has what the experiments need there, read-only (clusters/cluster/); `npm run
// cluster -- cleanup`: what runs left there, listed, and deleted with --yes; `npm run cluster --
// rbac`: the roles a run needs there.
import { Command } from 'commander';
import type { Option } from 'commander';
import { CLUSTER_PROVIDER } from '../../clusters/cluster/provider.ts';
import { ADDRESS_BLOCKS, createLocalBackend, MAX_NODES } from '../../clusters/local/index.ts';
import { buildMeshManifests } from '../../clusters/manifests/index.ts';
import { createSystemClock, EXIT } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { numberParser } from '../options/parse-values.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { outputFolderParser } from '../cli/output-location.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';
import { formatClusterAddresses, formatEvent } from '../../clusters/format-cluster.ts';
import { checkExistingCluster } from '../../clusters/cluster/check-cluster.ts';
import type { CheckFlags } from '../../clusters/cluster/check-cluster.ts';
import { cleanupExistingCluster } from '../../clusters/cluster/cleanup.ts';
import type { CleanupFlags } from '../../clusters/cluster/cleanup.ts';
import { printRbac } from '../../clusters/cluster/print-rbac.ts';
import type { RbacFlags } from '../../clusters/cluster/print-rbac.ts';

/** httpbin replicas a cluster brought up by hand may have (a process each, on these cores). */
const MAX_REPLICAS = 16;

/** The experiment's options `cluster up` shares, from its table: one parser and help for both. */
const SHARED_OPTIONS = ['grace', 'mesh', 'gateway-mode', 'timing'];

interface UpFlags {
  nodes: number;
  replicas: number;
  grace: number;
  mesh: 'ambient' | 'off';
  gatewayMode: 'hbone' | 'plain';
  addressBlock?: number;
  logDir?: string;
  timing?: Record<string, number>;
  events: boolean;
}

// `up`'s own options (the experiment's it shares come from its table, SHARED_OPTIONS).
const NODES: Flag<number> = {
  key: 'nodes',
  arg: '<n>',
  description: 'nodes',
  parse: numberParser('--nodes', { min: 1, max: MAX_NODES, integer: true }),
  default: 2,
};
const REPLICAS: Flag<number> = {
  key: 'replicas',
  arg: '<n>',
  description: 'httpbin replicas',
  parse: numberParser('--replicas', { min: 0, max: MAX_REPLICAS, integer: true }),
  default: 3,
};
const ADDRESS_BLOCK: Flag<number> = {
  key: 'address-block',
  arg: '<n>',
  description: 'use 127.<n>.0.0/16 (default: random 150-249)',
  parse: numberParser('--address-block', { ...ADDRESS_BLOCKS, integer: true }),
};
const LOG_DIR: Flag<string> = {
  key: 'log-dir',
  arg: '<dir>',
  description: 'write every container log here',
  parse: outputFolderParser('--log-dir', './cluster-logs'),
};
/** A negated switch: commander sets `events` true unless it is given. */
const NO_EVENTS: Flag<boolean> = { key: 'no-events', description: 'do not stream lifecycle events' };

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
    new Command('cluster').description('The embedded local cluster.'),
  ).exitOverride();
  const up = program
    .command('up')
    .description('bring the local cluster up and keep it running until Ctrl-C')
    .addOption(commanderOption(NODES))
    .addOption(commanderOption(REPLICAS))
    .addOption(commanderOption(ADDRESS_BLOCK))
    .addOption(commanderOption(LOG_DIR))
    .addOption(commanderOption(NO_EVENTS));
  for (const spec of experimentOptions().filter((o) => SHARED_OPTIONS.includes(o.key)))
    up.addOption(commanderOption(spec));
  up.exitOverride()
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

runMain(async (signal) => {
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
  const clock = createSystemClock();
  const backend = createLocalBackend({
    clock,
    nodeCount: flags.nodes,
    ...(flags.addressBlock === undefined ? {} : { addressBlock: flags.addressBlock }),
    ...(flags.logDir === undefined ? {} : { logDir: flags.logDir }),
    ...(flags.timing ? { timing: flags.timing } : {}),
  });
  const stopped = new Promise<string>((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve('interrupted');
      },
      { once: true },
    );
    backend.onFailure((err) => {
      resolve(err.message);
    });
  });
  try {
    if (flags.events) backend.onEvent((e) => process.stderr.write(formatEvent(e)));
    const startMs = clock.now();
    process.stderr.write('cluster: starting control plane and nodes\n');
    await backend.preflight();
    await backend.up(signal);
    await backend.apply(
      buildMeshManifests({
        ztunnel: { graceS: flags.grace },
        httpbin: { replicas: flags.replicas, mesh: flags.mesh },
        gateway: { mode: flags.gatewayMode },
      }),
    );
    await backend.waitForReady({ timeoutMs: 60_000, signal });
    process.stdout.write(
      `cluster ready in ${((clock.now() - startMs) / 1000).toFixed(2)} s\n${formatClusterAddresses(backend.addresses())}`,
    );
    process.stdout.write('Ctrl-C tears everything down.\n');
    const reason = await stopped;
    process.stderr.write(`cluster: ${reason}; tearing down\n`);
    // A cluster that stopped on its own (a component failed) could not do its job: exit 3.
    return reason === 'interrupted' ? EXIT.pass : EXIT.couldNotRun;
  } finally {
    await backend.close();
    process.stderr.write('cluster: every process stopped\n');
  }
});
