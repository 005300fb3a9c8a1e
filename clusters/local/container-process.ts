import { execa } from 'execa';
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';

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
    for (const pid of live) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone between its exit and our bookkeeping: nothing to kill.
      }
    }
  });
}

export interface ContainerExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

export interface ContainerProcess {
  pid: number;
  /** Resolves when a stdout line matches `startedPattern` (default: the first line): the entrypoint is up. */
  started: Promise<void>;
  exited: Promise<ContainerExit>;
  kill(signal: NodeJS.Signals): void;
  /** The last lines of stdout and stderr, oldest first. */
  lines(): readonly string[];
}

const MAX_LINES = 20_000;

export function spawnContainer(options: {
  command: string;
  args: string[];
  env: Record<string, string>;
  logPath?: string;
  startedPattern?: RegExp;
  onLine?: (line: string) => void;
}): ContainerProcess {
  installExitHook();
  const child = execa(options.command, options.args, {
    env: options.env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    detached: true,
    cleanup: false,
    // The kubelet model owns SIGKILL timing (the grace period), not execa.
    forceKillAfterDelay: false,
    buffer: false,
  });
  const pid = child.pid ?? -1;
  if (pid > 0) live.add(pid);
  const log: WriteStream | undefined = options.logPath
    ? createWriteStream(options.logPath, { flags: 'a' })
    : undefined;
  const lines: string[] = [];
  const started = Promise.withResolvers<undefined>();
  const onChunk = (isStdout: boolean) => {
    let partial = '';
    return (chunk: Buffer): void => {
      log?.write(chunk);
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (lines.length > MAX_LINES) lines.shift();
        if (isStdout && (options.startedPattern?.test(line) ?? true)) started.resolve(undefined);
        options.onLine?.(line);
      }
    };
  };
  child.stdout.on('data', onChunk(true));
  child.stderr.on('data', onChunk(false));
  const exited = child.then((result) => {
    live.delete(pid);
    log?.end();
    started.reject(
      new Error(
        `exited before it was up (exit code ${String(result.exitCode)}, signal ${String(result.signal)})`,
      ),
    );
    return { exitCode: result.exitCode, signal: result.signal };
  });
  started.promise.catch(() => undefined); // observed by whoever awaits it; an early exit is reported via exited
  return {
    pid,
    started: started.promise,
    exited,
    kill: (signal) => {
      child.kill(signal);
    },
    lines: () => lines,
  };
}
