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

/** Every process below `root` right now (its children, theirs, and so on). */
export async function descendantPids(root: number): Promise<number[]> {
  const ps = await execa('ps', ['-e', '-o', 'pid=,ppid='], { reject: false });
  const children = new Map<number, number[]>();
  for (const line of ps.stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const walk = (pid: number): void => {
    for (const c of children.get(pid) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(root);
  return found;
}

/**
 * Resolves once an `npm run experiment` child says its load has started (or it has ended): the
 * moment the SIGINT tests interrupt it.
 */
export function untilLoadStarts(child: {
  stderr: NodeJS.ReadableStream;
  then: PromiseLike<unknown>['then'];
}): Promise<void> {
  let stderr = '';
  return new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/load: .* of load left/.test(stderr)) resolve();
    });
    void child.then(() => {
      resolve();
    });
  });
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
