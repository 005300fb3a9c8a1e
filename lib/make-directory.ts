import { lstat, mkdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p` that always settles: creates each missing folder of `path` in turn, parents first, and
 * fails with the first real error.
 *
 * Node's own `mkdir(path, { recursive: true })` (MKDirpSync/MKDirpAsync in node's src/node_file.cc)
 * reads ENOENT as "the parent is missing": it makes the parent, finds it there (EEXIST) and tries
 * the child again. Where the parent exists but still answers ENOENT (procfs: /proc/nonexistent/x;
 * a dangling symbolic link in the path) that loop never ends: a thread-pool thread at full CPU, a
 * promise that never settles and a process that cannot exit (reproduced on Node 24.21). Here every
 * mkdir is one level, so the walk is as long as the path and procfs's ENOENT is the answer.
 */
export async function makeDirectory(path: string): Promise<void> {
  const target = resolve(path);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    if (await lstatOrUndefined(at)) break;
    missing.unshift(at);
    if (dirname(at) === at) break; // the root itself missing: mkdir below says why
  }
  // Nothing missing: the target itself is tried, so a file there fails with EEXIST as in Node.
  for (const folder of missing.length > 0 ? missing : [target]) {
    try {
      await mkdir(folder);
    } catch (err) {
      // Someone else made it meanwhile: fine if it is a folder (or a link to one).
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(folder)).isDirectory()) throw err;
    }
  }
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
