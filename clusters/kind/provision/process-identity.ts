import { readFile } from 'node:fs/promises';

/**
 * A process as the kernel knows it: its pid and its start time (`/proc/<pid>/stat` field 22, clock
 * ticks since boot; proc(5)). A pid alone can be reused once its process is gone; the pair cannot.
 */
export interface ProcessIdentity {
  pid: number;
  startTicks: string;
}

/** The process's start time, or undefined when no process has that pid (or /proc cannot say). */
export async function readStartTicks(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field 3 (state) is fields[0]; a zombie has exited (only its parent's wait is missing).
  if (fields[0] === 'Z') return undefined;
  return fields[19];
}

export async function identify(pid: number): Promise<ProcessIdentity | undefined> {
  const startTicks = await readStartTicks(pid);
  return startTicks === undefined ? undefined : { pid, startTicks };
}

/** Whether the very process `who` names still runs (not another one given its pid since). */
export async function isStillRunning(who: ProcessIdentity): Promise<boolean> {
  return (await readStartTicks(who.pid)) === who.startTicks;
}
