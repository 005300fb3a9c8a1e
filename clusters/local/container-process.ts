import { closeSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { followLog, openContainerLog, readLogTail } from './container-log.ts';
import type { LogFollower } from './container-log.ts';

/** Every container process this Node process started and has not seen exit, by PID. */
const live = new Set<number>();
let exitHookInstalled = false;

/**
 * Last-resort cleanup: containers run in their own process group (so a terminal's Ctrl-C reaches
 * the harness only, which then stops them in order); if the harness exits without doing so, kill
 * them here rather than leave them behind. Only PIDs we started, only while we know they live.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of live) killGroup(pid);
  });
}

/**
 * SIGKILL to a container's whole process group (it leads its own: spawned detached), as the
 * runtime kills every process in the container's cgroup: a pilot-agent's Envoy dies with it.
 */
function killGroup(pid: number): void {
  for (const target of [-pid, pid])
    try {
      process.kill(target, 'SIGKILL');
      return;
    } catch {
      // Not a group leader, or already gone between its exit and our bookkeeping.
    }
}

/** Another process of ours that must not outlive the harness (SIGKILLed at exit if still known). */
export function trackChildPid(pid: number): void {
  installExitHook();
  live.add(pid);
}

export function untrackChildPid(pid: number): void {
  live.delete(pid);
}

export interface ContainerExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

export interface ContainerProcess {
  pid: number;
  /** Resolves when a log line matches `startedPattern` (default: the first line): the entrypoint is up. */
  started: Promise<void>;
  exited: Promise<ContainerExit>;
  kill(signal: NodeJS.Signals): void;
  /** The last `maxLines` lines of its log (stdout and stderr), oldest first. */
  lines(maxLines?: number): string[];
}

/**
 * Starts a container's process with its stdout and stderr written straight into `logPath` (see
 * container-log.ts). The log is followed until the started line; with `onLine`, for the process's
 * whole life (lifecycle lines such as ztunnel's drain deadline), which suits low-volume logs only.
 */
export function spawnContainer(options: {
  command: string;
  args: string[];
  env: Record<string, string>;
  logPath: string;
  startedPattern?: RegExp;
  onLine?: (line: string) => void;
}): ContainerProcess {
  installExitHook();
  const fd = openContainerLog(options.logPath);
  // node:child_process rather than execa: execa's types take only descriptors 0-9 for stdio, and a
  // file given as `{ file }` is written by a stream in this process, which is what we avoid here.
  const child = (() => {
    try {
      return spawn(options.command, options.args, {
        env: options.env,
        stdio: ['ignore', fd, fd],
        // Its own process group: a terminal's Ctrl-C reaches the harness, which stops it in order.
        detached: true,
      });
    } finally {
      closeSync(fd); // the child holds its own copy
    }
  })();
  const pid = child.pid ?? -1;
  if (pid > 0) live.add(pid);
  const result = new Promise<ContainerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ exitCode: code ?? undefined, signal: signal ?? undefined });
    });
    child.once('error', () => {
      resolve({ exitCode: undefined, signal: undefined }); // could not be started at all
    });
  });
  const started = Promise.withResolvers<undefined>();
  let isStarted = false;
  const follower: LogFollower = followLog(options.logPath, (line) => {
    if (!isStarted && (options.startedPattern?.test(line) ?? true)) {
      isStarted = true;
      started.resolve(undefined);
    }
    options.onLine?.(line);
    return !isStarted || options.onLine !== undefined;
  });
  const exited = result.then(async (exit) => {
    live.delete(pid);
    // PID 1 gone: the runtime tears down what else ran in the container (its PID namespace).
    killGroup(pid);
    await follower.stop();
    started.reject(
      new Error(
        `exited before it was up (exit code ${String(exit.exitCode)}, signal ${String(exit.signal)})`,
      ),
    );
    return exit;
  });
  started.promise.catch(() => undefined); // observed by whoever awaits it; an early exit is reported via exited
  return {
    pid,
    started: started.promise,
    exited,
    kill: (signal) => {
      // SIGTERM goes to the container's main process only (the runtime signals PID 1); SIGKILL to all.
      if (signal === 'SIGKILL') killGroup(pid);
      else child.kill(signal);
    },
    lines: (maxLines = 20_000) => readLogTail(options.logPath, maxLines),
  };
}
