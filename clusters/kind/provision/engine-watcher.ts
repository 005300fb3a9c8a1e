import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import type { EngineLayout } from './engine-layout.ts';
import { identify, isStillRunning } from './process-identity.ts';
import type { ProcessIdentity } from './process-identity.ts';

/** Our kind cluster on our daemon: what the watcher deletes before stopping the daemon. */
export interface WatchedCluster {
  kindPath: string;
  name: string;
  kubeconfigPath: string;
  /** Our Docker network for the nodes (KIND_EXPERIMENTAL_DOCKER_NETWORK), removed after. */
  network?: string;
}

/** What the watcher process is told (its one argument, as JSON). */
export interface WatcherSpec {
  harness: ProcessIdentity;
  daemon: ProcessIdentity;
  layout: EngineLayout;
  /** The environment kind and docker run with there (DOCKER_HOST of ours, PATH). */
  env: Record<string, string>;
  pollMs: number;
}

/**
 * A small detached process that stops the dockerd a run started when that run's process dies
 * without stopping it (SIGKILL, a crash: no handler of ours runs), as `npm run kind-engine -- stop`
 * would, our kind cluster deleted first. Only the processes it was given (pid and start time) are
 * signalled. The run dismisses it when it stops the daemon itself, or keeps it (a kept cluster).
 */
export interface EngineWatcher {
  readonly pid: number;
  /** The cluster to delete if the run dies (undefined: none, it was deleted). */
  noteCluster(cluster: WatchedCluster | undefined): Promise<void>;
  /** Ends the watcher (by the pid we recorded): the daemon is stopped here, or outlives the run. */
  dismiss(): Promise<void>;
}

const MAIN = join(import.meta.dirname, 'engine-watcher-main.ts');

export async function startEngineWatcher(options: {
  daemonPid: number;
  layout: EngineLayout;
  env: Record<string, string>;
  /** The run's process (default this one). */
  harnessPid?: number;
  pollMs?: number;
}): Promise<EngineWatcher | undefined> {
  const harness = await identify(options.harnessPid ?? process.pid);
  const daemon = await identify(options.daemonPid);
  // Nothing to watch: the daemon exited already (waiting for it to answer says why), or the run did.
  if (!harness || !daemon) return undefined;
  const spec: WatcherSpec = {
    harness,
    daemon,
    layout: options.layout,
    env: options.env,
    pollMs: options.pollMs ?? 1000,
  };
  const pid = spawnDetached(JSON.stringify(spec), options.layout.watcherLog);
  const watcher = await identify(pid);
  let dismissed: Promise<void> | undefined;
  return {
    pid,
    noteCluster: (cluster) =>
      cluster
        ? writeFile(options.layout.watchFile, `${JSON.stringify(cluster)}\n`)
        : rm(options.layout.watchFile, { force: true }),
    dismiss: () =>
      (dismissed ??= (async () => {
        // Only the watcher we started: it may have ended already (the daemon it watched was gone).
        if (watcher && (await isStillRunning(watcher))) killIfRunning(pid);
        await rm(options.layout.watchFile, { force: true });
      })()),
  };
}

function spawnDetached(spec: string, logPath: string): number {
  const log = openSync(logPath, 'a');
  try {
    // Its own session: a Ctrl-C to the run's terminal, or the run's process group killed, spares it.
    const child = spawn(process.execPath, [MAIN, spec], { detached: true, stdio: ['ignore', log, log] });
    child.unref();
    if (child.pid === undefined)
      throw new HarnessError(
        ErrorCode.ProvisionFailed,
        `the engine watcher did not start; its log: ${logPath}`,
      );
    return child.pid;
  } finally {
    closeSync(log);
  }
}

function killIfRunning(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    // ESRCH: it ended between the check and the signal, which is what was wanted.
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
