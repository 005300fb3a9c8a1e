// A pod's network namespace found from the node's processes, as istio-cni's node agent finds the
// namespace of a pod it did not see created (istio/istio cni/pkg/nodeagent/podcgroupns.go: every
// /proc/<pid>/cgroup is read for the kubelet's pod cgroup, `pod<uid>` - the uid's dashes turned
// into underscores under the systemd cgroup driver -, and that process's /proc/<pid>/ns/net is the
// pod's). It needs the node's PID namespace (hostPID), as istio-cni's pods have. Upstream keeps an
// open fd of that namespace and passes it to ztunnel; here ztunnel is handed a path instead, so the
// namespace is named by the runtime's pin of it in /var/run/netns (the same inode), which ztunnel's
// pod mounts, rather than by a /proc path only the node's PID namespace can see.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The pod uid a /proc/<pid>/cgroup text names (`...pod<uid>...`, either spelling), or undefined. */
export function podUidOfCgroup(text: string): string | undefined {
  const match = /pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})/.exec(text);
  return match?.[1]?.replaceAll('_', '-');
}

/**
 * The pod's network namespace: the file in `pinDir` that is the namespace of the pod's first process
 * (the lowest pid: the sandbox's pause, which lives as long as the pod's network), or that process's
 * `<procRoot>/<pid>/ns/net` without `pinDir`; undefined while no process of the pod runs yet, or no
 * pin is that namespace.
 */
export async function findPodNetns(
  uid: string,
  where: { procRoot?: string; pinDir?: string } = {},
): Promise<string | undefined> {
  const found = await findProcessNetns(uid, where.procRoot ?? '/proc');
  if (!found || !where.pinDir) return found;
  const want = await stat(found).catch(() => undefined);
  if (!want) return undefined;
  for (const name of await readdir(where.pinDir).catch(() => [])) {
    const pin = join(where.pinDir, name);
    const got = await stat(pin).catch(() => undefined);
    if (got && got.ino === want.ino && got.dev === want.dev) return pin;
  }
  return undefined;
}

async function findProcessNetns(uid: string, procRoot: string): Promise<string | undefined> {
  const pids = (await readdir(procRoot))
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    const text = await readFile(join(procRoot, String(pid), 'cgroup'), 'utf8').catch(() => '');
    if (podUidOfCgroup(text) === uid) return join(procRoot, String(pid), 'ns', 'net');
  }
  return undefined;
}
