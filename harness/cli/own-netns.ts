import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** Set in the re-executed child so it does not re-execute again. */
const INSIDE = 'ZTUNNEL_HARNESS_NETNS';
const SYSCTL = '/proc/sys/net/ipv4/tcp_migrate_req';

export function isInsideOwnNetns(): boolean {
  return process.env[INSIDE] === '1';
}

/** The value of net.ipv4.tcp_migrate_req in this process's network namespace. */
export function readTcpMigrateReq(): number | undefined {
  try {
    return Number(readFileSync(SYSCTL, 'utf8').trim());
  } catch {
    return undefined;
  }
}

/**
 * `--tcp-migrate-req 1`: net.ipv4.tcp_migrate_req is per network namespace, and changing the host's
 * would change every socket on the machine. So the whole experiment (cluster, k6, all on loopback)
 * re-runs itself in a fresh namespace: `unshare --net`, loopback up, the sysctl set to 1. Needs root
 * (CAP_SYS_ADMIN and CAP_NET_ADMIN); without it this says so and exits 2.
 */
export async function rerunInOwnNetns(signal: AbortSignal): Promise<number> {
  if (process.getuid?.() !== 0)
    throw new HarnessError(
      ErrorCode.BadInput,
      `--tcp-migrate-req 1 needs root to create a network namespace (running as uid ${String(process.getuid?.())}); run as root or leave the arm off`,
    );
  const script = `ip link set lo up && sysctl -qw net.ipv4.tcp_migrate_req=1 && exec "$0" "$@"`;
  const result = await execa(
    'unshare',
    ['--net', '--', 'sh', '-c', script, process.execPath, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
      // Its own process group: a terminal's Ctrl-C reaches only this process, which passes it on
      // once (a second signal would make the child exit without cleaning up).
      detached: true,
      env: { [INSIDE]: '1' },
      reject: false,
      cancelSignal: signal,
      forceKillAfterDelay: 10_000,
    },
  );
  if (result.failed && result.exitCode === undefined && !result.isCanceled)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `could not create a network namespace for --tcp-migrate-req 1 (${result.shortMessage}); it needs unshare (util-linux) and ip (iproute2)`,
    );
  return result.exitCode ?? 130;
}
