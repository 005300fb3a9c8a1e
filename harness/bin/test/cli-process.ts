// Runs a CLI of harness/bin as a user does, in a process group of its own, and reports what a test
// of "nothing started" needs: exit code, output, how long it took, and whether any process of that
// group outlived it.
import { join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';

export interface CliRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  tookMs: number;
  /** True when a process of the command's group was still there after it exited. */
  leftProcess: boolean;
}

/** True while some process is in group `pgid` (signal 0 to the group checks without sending). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false; // ESRCH: the group is empty
  }
}

export async function runBin(
  name: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const startedMs = performance.now();
  const child = execa(process.execPath, [join(PROJECT_ROOT, 'harness', 'bin', `${name}.ts`), ...args], {
    reject: false,
    stdin: 'ignore',
    detached: true,
    timeout: options.timeoutMs ?? 20_000,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const result = await child;
  const tookMs = performance.now() - startedMs;
  const pgid = child.pid ?? -1;
  const leftProcess = pgid > 0 && groupAlive(pgid);
  if (leftProcess) process.kill(-pgid, 'SIGKILL');
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, tookMs, leftProcess };
}
