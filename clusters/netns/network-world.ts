// Pods in network namespaces of their own, for programs that bind fixed wildcard ports inside the
// namespace they serve (istio/ztunnel: 15008, 15006, 15001, 15021, 15020), which the loopback model
// (one 127.x address per pod, clusters/local/address-pool.ts) cannot host.
//
// Layout (O = the world's octet, chosen free at creation):
//   host netns   --veth zh<O> 10.O.255.1/30 ----- uplink 10.O.255.2/30--  cluster netns
//                   route 10.O.0.0/16 via 10.O.255.2                      bridges br<n> 10.O.<n>.1/24,
//                                                                          forwarding on
//   pod netns    eth0 10.O.<n>.<k>/24, default via 10.O.<n>.1  --veth--  bridge br<n> (node n)
//                (k in 2-127; a meshed pod's app also gets 10.O.<n>.<k+126>, its private address)
//
// Nothing outlives the process that made it, even after SIGKILL: every namespace is held by a
// `sleep` started with the parent-death signal set (setpriv --pdeathsig KILL), not by a name under
// /run/netns; when the last process in a namespace dies the kernel removes it with its veth ends,
// and a veth pair, the host's route and bridges all go with it. Programs run in a pod's namespace
// are started the same way (podCommand).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { execa } from 'execa';
import { applyInpodCapture, HOST_PROBE_ADDRESS } from '../../mesh/node-agent/inpod-capture.ts';

export interface PodNetns {
  name: string;
  node: number;
  ip: string;
  /**
   * The namespace as a path another process can open (setns, nsenter --net=): what istio-cni hands
   * ztunnel over ZDS (there as an fd). Valid while the pod's sandbox lives.
   */
  path: string;
  /** argv that runs `argv` inside this pod's namespace, killed if the harness dies. */
  command(argv: string[]): string[];
  /**
   * CNI DEL: the pod's veth is deleted (with it eth0 and every address on it), then the holder is
   * killed. From then on the pod's addresses answer nothing, even while some process (ztunnel)
   * still holds sockets in the namespace, which keeps the namespace itself alive, as in a cluster.
   */
  remove(): Promise<void>;
}

export interface NetworkWorld {
  octet: number;
  /** The host-side veth; gone (with the route) once the world is. */
  hostLink: string;
  /** The host's address on it: what a pod sees as the source of the host's connections. */
  hostAddress: string;
  /**
   * The kubelet's probe address (istio-cni's HOST_PROBE_SNAT_ADDRESS), also on the host's link: a
   * probe bound to it passes a captured pod's rules untouched (inpod-capture.ts).
   */
  probeAddress: string;
  /** argv that runs `argv` in the cluster's namespace (its bridges and the uplink), killed with the harness. */
  clusterCommand(argv: string[]): string[];
  /** The cluster namespace's end of the host link: every packet between a pod and the host crosses it. */
  uplink: string;
  /** The next free address on node n's bridge (a pod IP known before its sandbox exists). */
  reserve(node: number): string;
  /**
   * A pod's namespace on node n, with `ip` (reserved) or the next free address; `appAddress`: also
   * the pod's private app address (appAddressOf); `sysctls`: set inside the namespace, as a pod's
   * securityContext.sysctls are (name -> value, e.g. net.ipv4.tcp_migrate_req); `capture`: istio-cni's
   * in-pod rules (inpod-capture.ts), for a pod whose node runs istio/ztunnel in shared mode.
   */
  addPod(
    node: number,
    name: string,
    ip?: string,
    options?: { appAddress?: boolean; sysctls?: Readonly<Record<string, string>>; capture?: boolean },
  ): Promise<PodNetns>;
  /** The holders' pids (for a leak check). */
  holders(): number[];
  close(): void;
}

const TOOLS = ['ip', 'unshare', 'nsenter', 'setpriv', 'sleep'];

/** Why network namespaces cannot be made here, or undefined when they can. */
export async function netnsUnavailable(uid = process.getuid?.()): Promise<string | undefined> {
  if (uid !== 0) return `network namespaces need root (running as uid ${String(uid)})`;
  for (const tool of TOOLS) {
    const found = await execa('sh', ['-c', `command -v ${tool}`], { reject: false });
    if (found.exitCode !== 0) return `${tool} is not installed (util-linux and iproute2 provide them)`;
  }
  return undefined;
}

const KEEP_ALIVE = ['setpriv', '--pdeathsig', 'KILL'];

/** Pod hosts 2-127 on a node's /24; the app's private address is the pod's plus this. */
const APP_OFFSET = 126;

/**
 * A meshed pod's private app address in a netns world: the pod's own address is its ztunnel's (the
 * in-pod listeners bind its ports), the app binds this one, on the same eth0; the loopback model's
 * appIp (clusters/local/address-pool.ts) in a namespace.
 */
export function appAddressOf(podIp: string): string {
  const parts = podIp.split('.');
  const host = Number(parts[3]);
  if (parts.length !== 4 || !(host >= 2 && host <= 127))
    throw new Error(`${podIp} is not a pod address of a network world (10.O.<n>.2-127)`);
  return [...parts.slice(0, 3), String(host + APP_OFFSET)].join('.');
}

function netnsOf(pid: number | 'self'): string {
  return readlinkSync(`/proc/${String(pid)}/ns/net`);
}

/** A `sleep` in a new network namespace, killed when this process dies. */
async function startHolder(): Promise<ChildProcess & { pid: number }> {
  const holder = spawn(
    KEEP_ALIVE[0] ?? '',
    [...KEEP_ALIVE.slice(1), 'unshare', '--net', 'sleep', 'infinity'],
    {
      stdio: 'ignore',
    },
  );
  const pid = holder.pid;
  if (pid === undefined) throw new Error('could not start a network namespace holder');
  const ours = netnsOf('self');
  const startedBy = Date.now() + 5_000;
  // unshare has made the namespace once the holder's link differs from ours (then it execs sleep).
  for (;;) {
    let theirs: string | undefined;
    try {
      theirs = netnsOf(pid);
    } catch {
      theirs = undefined;
    }
    if (theirs !== undefined && theirs !== ours) break;
    if (holder.exitCode !== null || Date.now() > startedBy)
      throw new Error(`the namespace holder (pid ${String(pid)}) did not start`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Object.assign(holder, { pid });
}

const inNs = (pid: number, argv: string[]): string[] => [
  'nsenter',
  `--net=/proc/${String(pid)}/ns/net`,
  '--',
  ...argv,
];

async function run(argv: string[]): Promise<void> {
  const [file = '', ...args] = argv;
  const result = await execa(file, args, { reject: false });
  if (result.exitCode !== 0)
    throw new Error(`${argv.join(' ')} failed (exit ${String(result.exitCode)}): ${result.stderr.trim()}`);
}

/** Takes the first octet O in 10.O.0.0/16 whose host link name is free (the name is the lock). */
async function claimUplink(clusterPid: number): Promise<number> {
  const start = 200 + Math.floor(Math.random() * 50);
  for (let i = 0; i < 50; i++) {
    const octet = 200 + ((start - 200 + i) % 50);
    const made = await execa(
      'ip',
      [
        'link',
        'add',
        `zh${String(octet)}`,
        'type',
        'veth',
        'peer',
        'name',
        'uplink',
        'netns',
        String(clusterPid),
      ],
      { reject: false },
    );
    if (made.exitCode === 0) return octet;
  }
  throw new Error('no free 10.O.0.0/16 block for a network world (zh200-zh249 all taken)');
}

export async function createNetworkWorld(options: { nodes: number }): Promise<NetworkWorld> {
  const cluster = await startHolder();
  const holders = new Set<ChildProcess & { pid: number }>([cluster]);
  const close = (): void => {
    for (const h of holders) h.kill('SIGKILL');
    holders.clear();
  };
  try {
    const octet = await claimUplink(cluster.pid);
    const net = `10.${String(octet)}`;
    const hostLink = `zh${String(octet)}`;
    const c = (argv: string[]): Promise<void> => run(inNs(cluster.pid, argv));
    await run(['ip', 'addr', 'add', `${net}.255.1/30`, 'dev', hostLink]);
    await run(['ip', 'link', 'set', hostLink, 'up']);
    await c(['ip', 'addr', 'add', `${net}.255.2/30`, 'dev', 'uplink']);
    await c(['ip', 'link', 'set', 'uplink', 'up']);
    await c(['ip', 'link', 'set', 'lo', 'up']);
    await c(['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    await run(['ip', 'route', 'add', `${net}.0.0/16`, 'via', `${net}.255.2`, 'dev', hostLink]);
    // The probe address lives on this world's link (gone with it) and routes back through it.
    await run(['ip', 'addr', 'add', `${HOST_PROBE_ADDRESS}/32`, 'dev', hostLink]);
    await c(['ip', 'route', 'add', `${HOST_PROBE_ADDRESS}/32`, 'via', `${net}.255.1`, 'dev', 'uplink']);
    for (let n = 1; n <= options.nodes; n++) {
      await c(['ip', 'link', 'add', `br${String(n)}`, 'type', 'bridge']);
      await c(['ip', 'addr', 'add', `${net}.${String(n)}.1/24`, 'dev', `br${String(n)}`]);
      await c(['ip', 'link', 'set', `br${String(n)}`, 'up']);
    }
    const nextHost = new Map<number, number>();
    const reserve = (node: number): string => {
      if (node < 1 || node > options.nodes) throw new Error(`no node ${String(node)} in this world`);
      const host = (nextHost.get(node) ?? 1) + 1;
      if (host > 127) throw new Error(`node ${String(node)} has no pod addresses left`);
      nextHost.set(node, host);
      return `${net}.${String(node)}.${String(host)}`;
    };
    let nextLink = 0;
    return {
      octet,
      hostLink,
      hostAddress: `${net}.255.1`,
      probeAddress: HOST_PROBE_ADDRESS,
      clusterCommand: (argv) => [...KEEP_ALIVE, ...inNs(cluster.pid, argv)],
      uplink: 'uplink',
      reserve,
      async addPod(node, name, reserved, podOptions = {}) {
        const ip = reserved ?? reserve(node);
        const pod = await startHolder();
        holders.add(pod);
        const link = `vp${String(++nextLink)}`;
        await c([
          'ip',
          'link',
          'add',
          link,
          'type',
          'veth',
          'peer',
          'name',
          'eth0',
          'netns',
          String(pod.pid),
        ]);
        await c(['ip', 'link', 'set', link, 'master', `br${String(node)}`]);
        await c(['ip', 'link', 'set', link, 'up']);
        const p = (argv: string[]): Promise<void> => run(inNs(pod.pid, argv));
        await p(['ip', 'addr', 'add', `${ip}/24`, 'dev', 'eth0']);
        if (podOptions.appAddress) await p(['ip', 'addr', 'add', `${appAddressOf(ip)}/24`, 'dev', 'eth0']);
        for (const [key, value] of Object.entries(podOptions.sysctls ?? {}))
          await p(['sysctl', '-q', '-w', `${key}=${value}`]);
        await p(['ip', 'link', 'set', 'eth0', 'up']);
        await p(['ip', 'link', 'set', 'lo', 'up']);
        await p(['ip', 'route', 'add', 'default', 'via', `${net}.${String(node)}.1`]);
        if (podOptions.capture) await applyInpodCapture((argv) => inNs(pod.pid, argv));
        let removed: Promise<void> | undefined;
        return {
          name,
          node,
          ip,
          path: `/proc/${String(pod.pid)}/ns/net`,
          command: (argv) => [...KEEP_ALIVE, ...inNs(pod.pid, argv)],
          remove: () =>
            (removed ??= (async () => {
              // Deleting one end deletes the pair; gone already if the world was closed.
              const [file = '', ...args] = inNs(cluster.pid, ['ip', 'link', 'del', link]);
              await execa(file, args, { reject: false });
              pod.kill('SIGKILL');
              holders.delete(pod);
            })()),
        };
      },
      holders: () => [...holders].map((h) => h.pid),
      close,
    };
  } catch (err) {
    close();
    throw err;
  }
}
