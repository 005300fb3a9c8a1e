import { readFileSync } from 'node:fs';
import { badInput, DEFAULT_ACCEPTOR_SOCKETS } from '../../lib/index.ts';

/**
 * Open files a run's busiest process needs: the gateway worker holds every downstream connection,
 * one upstream connection per request in flight and its listen sockets (lib/acceptors.ts); the
 * destination ztunnel holds a captured connection and one to the app per request in flight.
 * The rest (discovery, logs, HBONE connections, the runtime's own) stays under 128.
 */
export function openFilesNeeded(connections: number): number {
  return 2 * connections + DEFAULT_ACCEPTOR_SOCKETS + 128;
}

/** This process's RLIMIT_NOFILE from /proc/self/limits (Infinity for unlimited); undefined off Linux. */
export function readOpenFilesLimit(limits?: string): { soft: number; hard: number } | undefined {
  let text = limits;
  try {
    text ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined; // no /proc: nothing to check here
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  const value = (v: string | undefined): number => (v === 'unlimited' ? Infinity : Number(v));
  return { soft: value(m[1]), hard: value(m[2]) };
}

/**
 * Every container inherits the harness's RLIMIT_NOFILE. Node does not raise its soft limit the way
 * Go programs such as k6 do, and `npm run` raises it to the hard limit before starting the harness
 * (package.json); started any other way with too low a limit, a run at -c 1000 would fail with
 * EMFILE in the middle. Refused up front instead (exit 2).
 */
export function checkOpenFilesLimit(connections: number, limits = readOpenFilesLimit()): void {
  if (!limits) return;
  const needed = openFilesNeeded(connections);
  if (limits.soft >= needed) return;
  throw badInput(
    '-c/--connections',
    `at most ${String(Math.floor((limits.soft - DEFAULT_ACCEPTOR_SOCKETS - 128) / 2))} with this open-files limit`,
    connections,
    `-c ${String(connections)} needs about ${String(needed)} open files in one process, and the soft limit (ulimit -n) is ${String(limits.soft)} (hard ${String(limits.hard)}): ` +
      (limits.hard >= needed
        ? `start the harness through npm run, which raises the soft limit to the hard one, or run \`ulimit -n ${String(needed)}\` first`
        : `the hard limit is too low as well; raise it (as root: \`ulimit -Hn ${String(needed)}\`, or nofile in /etc/security/limits.conf) or use fewer connections`),
  );
}
