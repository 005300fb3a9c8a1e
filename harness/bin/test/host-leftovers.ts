// What a cluster run may leave on the host (namespace holders, istio/ztunnel processes, the network
// world's link), for the tests that run the local backend with network namespaces. Other tests may
// run at the same time (node --test runs files in parallel) with processes and links of their own,
// so a leftover is only what the finished run can have left: an orphan (its parent gone, adopted
// by init) started after the snapshot, or this run's own world link.
import { readFileSync } from 'node:fs';
import { execa } from 'execa';

/** Network links on the host (a pod's veth, a world's bridge link) by name. */
export async function linkNames(): Promise<Set<string>> {
  const { stdout } = await execa('ip', ['-o', 'link', 'show']);
  return new Set(stdout.split('\n').map((l) => l.split(':')[1]?.trim().split('@')[0] ?? ''));
}

/** PIDs of processes whose command line has `pattern` (pgrep -f; nothing is killed). */
export async function pidsOf(pattern: string): Promise<Set<string>> {
  const { stdout } = await execa('pgrep', ['-f', pattern], { reject: false });
  return new Set(stdout.split('\n').filter(Boolean));
}

/** The parent PID from /proc/<pid>/stat (after the command's closing parenthesis), or undefined if gone. */
function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** PIDs in `after` not in `before` that are orphans now: what an ended run left running. */
const newOrphans = (after: Set<string>, before: Set<string>): string[] =>
  [...after].filter((pid) => !before.has(pid) && parentOf(pid) === 1);

/**
 * Taken before a run; the returned check says what the run left: orphaned `binary` processes and
 * namespace holders started since, and `worldLink` (the run's zh<octet>) if it still exists.
 */
export async function hostSnapshot(
  binary: string,
): Promise<(worldLink: string) => Promise<Record<string, string[]>>> {
  const holders = await pidsOf('unshare --net');
  const binaries = await pidsOf(binary);
  return async (worldLink) => ({
    binaries: newOrphans(await pidsOf(binary), binaries),
    holders: newOrphans(await pidsOf('unshare --net'), holders),
    links: (await linkNames()).has(worldLink) ? [worldLink] : [],
  });
}

/** The network world's host link (zh<octet>) from any pod address 10.<octet>.x.y in `text`. */
export function worldLinkIn(text: string): string {
  const octet = /\b10\.(\d+)\.\d+\.\d+\b/.exec(text)?.[1];
  if (!octet) throw new Error('no network world address (10.O.x.y) in the run');
  return `zh${octet}`;
}
