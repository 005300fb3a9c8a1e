// What a cluster run may leave on the host (namespace holders, veths, processes): taken before and
// compared after, for the tests that run the local backend with network namespaces.
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

export const newOnes = (after: Set<string>, before: Set<string>): string[] =>
  [...after].filter((x) => !before.has(x));

/** The host's links, namespace holders and `binary` processes now, and a check that none were added. */
export async function hostSnapshot(binary: string): Promise<() => Promise<Record<string, string[]>>> {
  const links = await linkNames();
  const holders = await pidsOf('unshare --net');
  const binaries = await pidsOf(binary);
  return async () => ({
    binaries: newOnes(await pidsOf(binary), binaries),
    holders: newOnes(await pidsOf('unshare --net'), holders),
    links: newOnes(await linkNames(), links),
  });
}
