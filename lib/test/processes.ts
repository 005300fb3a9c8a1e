// Test helpers for "no process left behind": the PIDs a process started, and which are still alive.
import { execa } from 'execa';

/** True while a process with this PID exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: gone
  }
}

/** The direct children of `parent` right now. */
export async function childPids(parent: number): Promise<number[]> {
  const ps = await execa('ps', ['-o', 'pid=', '--ppid', String(parent)], { reject: false });
  return ps.stdout
    .split('\n')
    .map(Number)
    .filter((n) => n > 0);
}

/** `ps` lines for the PIDs still alive, to say what was left behind in a failure message. */
export async function describeAlive(pids: number[]): Promise<string[]> {
  return Promise.all(
    pids.filter(isAlive).map(async (pid) => {
      const r = await execa('ps', ['-o', 'pid=,ppid=,stat=,args=', '-p', String(pid)], { reject: false });
      return r.stdout;
    }),
  );
}
