// The embedded local cluster brought up by hand (`npm run local-cluster`, and `npm run cluster -- up`
// for one more release): the nodes, control plane, ztunnel DaemonSet and httpbin; it prints the
// addresses, streams lifecycle events, and tears everything down on Ctrl-C.
import type { Command } from 'commander';
import { ADDRESS_BLOCKS, createLocalBackend, MAX_NODES } from '../../clusters/local/index.ts';
import { buildMeshManifests } from '../../clusters/manifests/index.ts';
import { formatClusterAddresses, formatEvent } from '../../clusters/format-cluster.ts';
import { createSystemClock, EXIT } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { numberParser } from '../options/parse-values.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import { commanderOption } from './commander-option.ts';
import { outputFolderParser } from './output-location.ts';

/** httpbin replicas a cluster brought up by hand may have (a process each, on these cores). */
const MAX_REPLICAS = 16;

/** The experiment's options the local cluster shares, from its table: one parser and help for both. */
const SHARED_OPTIONS = ['grace', 'mesh', 'gateway-mode', 'timing'];

export interface UpFlags {
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

/** The local cluster's options on `command`: its own, then the experiment's it shares. */
export function addLocalClusterOptions(command: Command): Command {
  command
    .addOption(commanderOption(NODES))
    .addOption(commanderOption(REPLICAS))
    .addOption(commanderOption(ADDRESS_BLOCK))
    .addOption(commanderOption(LOG_DIR))
    .addOption(commanderOption(NO_EVENTS));
  for (const spec of experimentOptions().filter((o) => SHARED_OPTIONS.includes(o.key)))
    command.addOption(commanderOption(spec));
  return command;
}

/** Brings the cluster up and keeps it until `signal` aborts (exit 0) or a component fails (exit 3). */
export async function runLocalCluster(flags: UpFlags, signal: AbortSignal): Promise<number> {
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
}
