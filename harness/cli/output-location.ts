// Where a command will write, checked before anything starts and without creating anything: a folder
// that exists or can be created, a file whose folder exists, writable, and not in a kernel file system.
//
// The kernel file systems are refused by path and by file-system type: procfs answers mkdir of a
// missing entry with ENOENT rather than EPERM, and Node's `mkdir(path, { recursive: true })` takes
// ENOENT to mean "make the parent first", finds the parent there and tries again, forever, at full
// CPU (MKDirpAsync in node's src/node_file.cc; reproduced on Node 24 with /proc/nonexistent/results).
// A dangling symbolic link in the path loops the same way, so it is refused too. Root passes
// access(W_OK) on /proc and /sys, so the permission check alone would not catch them.
import { accessSync, constants, lstatSync, realpathSync, statfsSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { badInput } from '../../lib/index.ts';

/** statfs(2) f_type of the kernel's own file systems (linux/magic.h). */
const KERNEL_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x0027e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x00001cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x6e736673, 'nsfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
]);

/** Kernel trees by path (devtmpfs reports tmpfs's type); /dev/shm is an ordinary tmpfs. */
const KERNEL_TREES = ['/proc', '/sys', '/dev'];
const ALLOWED_UNDER_KERNEL_TREES = ['/dev/shm'];

const isUnder = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);

/** Why `path` (absolute) is in a kernel tree by its name alone, or undefined. */
function kernelPathOf(path: string): string | undefined {
  if (ALLOWED_UNDER_KERNEL_TREES.some((root) => isUnder(path, root))) return undefined;
  const root = KERNEL_TREES.find((r) => isUnder(path, r));
  return root ? `${path} is under ${root}, a kernel file system` : undefined;
}

/** Why the existing `path` is on a kernel file system (a bind mount of /proc elsewhere), or undefined. */
function kernelTypeOf(path: string): string | undefined {
  let type: number;
  try {
    type = statfsSync(path).type;
  } catch (err) {
    return `${path} cannot be inspected (${codeOf(err)})`;
  }
  const name = KERNEL_FILE_SYSTEMS.get(type);
  return name ? `${path} is on ${name}, a kernel file system` : undefined;
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

function lstatOrUndefined(path: string): Stats | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}

function kindOf(stats: Stats): string {
  if (stats.isFile()) return 'a file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isFIFO()) return 'a pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Follows a symbolic link at `path`; the reason when it leads nowhere. */
function targetOf(path: string, stats: Stats): Stats | string {
  if (!stats.isSymbolicLink()) return stats;
  try {
    return statSync(path);
  } catch (err) {
    return `${path} is a symbolic link to nothing (${codeOf(err)})`;
  }
}

/** Why an existing folder (absolute path) cannot take our files, or undefined. */
function unwritableFolder(path: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    return `${path} cannot be resolved (${codeOf(err)})`;
  }
  const kernel = kernelPathOf(real) ?? kernelTypeOf(real);
  if (kernel) return real === path ? kernel : `${path} leads to ${real}; ${kernel}`;
  try {
    accessSync(real, constants.W_OK | constants.X_OK);
  } catch (err) {
    return `${real} is not writable (${codeOf(err)})`;
  }
  return undefined;
}

/** The nearest existing entry at or above `path` and its stats, or the reason the walk stopped. */
function nearestExisting(path: string): { at: string; stats: Stats } | string {
  // Bounded: each step is one component up, and the root always exists.
  for (let at = path; ; at = dirname(at)) {
    let stats: Stats | undefined;
    try {
      stats = lstatOrUndefined(at);
    } catch (err) {
      // ENOTDIR (a file in the middle of the path), ENAMETOOLONG, EACCES, ELOOP.
      return `${at} cannot be reached (${codeOf(err)})`;
    }
    if (stats) return { at, stats };
    if (dirname(at) === at) return `${at} does not exist`;
  }
}

/** Why `raw` is no path at all (empty, a flag, NUL) or a path in a kernel tree, or undefined. */
function malformedPath(raw: string): string | undefined {
  if (raw.trim() === '') return 'the path is empty';
  if (raw.includes('\0')) return 'the path holds a NUL character';
  // `--results-dir --keep-cluster` would otherwise make a folder named after the flag.
  if (raw.startsWith('-'))
    return `it starts with "-" as a flag does (a value left out?); for that name write ./${raw}`;
  return kernelPathOf(resolve(raw));
}

/** Why `raw` cannot be an output folder, or undefined: it exists or can be created, writable. */
export function outputFolderProblem(raw: string): string | undefined {
  const malformed = malformedPath(raw);
  if (malformed) return malformed;
  const path = resolve(raw);
  const found = nearestExisting(path);
  if (typeof found === 'string') return found;
  const target = targetOf(found.at, found.stats);
  if (typeof target === 'string') return target;
  if (!target.isDirectory()) return `${found.at} is ${kindOf(target)}, not a folder`;
  return unwritableFolder(found.at);
}

/** Why `raw` cannot be an output file, or undefined: a new or regular file in an existing writable folder. */
export function outputFileProblem(raw: string): string | undefined {
  const malformed = malformedPath(raw);
  if (malformed) return malformed;
  const path = resolve(raw);
  let stats: Stats | undefined;
  try {
    stats = lstatOrUndefined(path);
  } catch (err) {
    return `${path} cannot be reached (${codeOf(err)})`;
  }
  if (stats) {
    const target = targetOf(path, stats);
    if (typeof target === 'string') return target;
    if (!target.isFile()) return `${path} is ${kindOf(target)}, not a file`;
  }
  const folder = dirname(path);
  const found = nearestExisting(folder);
  if (typeof found === 'string') return found;
  if (found.at !== folder) return `its folder ${folder} does not exist`;
  const target = targetOf(found.at, found.stats);
  if (typeof target === 'string') return target;
  if (!target.isDirectory()) return `${folder} is ${kindOf(target)}, not a folder`;
  const problem = unwritableFolder(folder);
  if (problem) return problem;
  if (stats) {
    try {
      accessSync(path, constants.W_OK);
    } catch (err) {
      return `${path} is not writable (${codeOf(err)})`;
    }
  }
  return undefined;
}

/** Throws bad input (exit 2) naming `flag` and the path when `raw` cannot be an output folder. */
export function checkOutputFolder(flag: string, raw: string, example: string): void {
  const problem = outputFolderProblem(raw);
  if (problem)
    throw badInput(
      flag,
      'a folder that exists or can be created, writable, outside /proc, /sys and /dev',
      raw,
      `${problem}; choose another, e.g. ${flag} ${example}`,
    );
}

/**
 * Throws bad input (exit 2) naming `flag` and the value given (`received`, by default the path) when
 * `raw` cannot be an output file.
 */
export function checkOutputFile(flag: string, raw: string, example: string, received = raw): void {
  const problem = outputFileProblem(raw);
  if (problem)
    throw badInput(
      flag,
      'a writable file in an existing folder, outside /proc, /sys and /dev',
      received,
      `${problem}; choose another, e.g. ${flag} ${example}`,
    );
}

/** A commander argument parser for an output folder flag (cluster's --log-dir). */
export function outputFolderParser(flag: string, example: string) {
  return (raw: string): string => {
    checkOutputFolder(flag, raw, example);
    return raw;
  };
}

/** A commander argument parser for an output file flag (compare's --markdown, --junit). */
export function outputFileParser(flag: string, example: string) {
  return (raw: string): string => {
    checkOutputFile(flag, raw, example);
    return raw;
  };
}
