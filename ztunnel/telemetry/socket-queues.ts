// Which of this network namespace's TCP sockets hold bytes the kernel has received but the process
// has not yet read: the `rx_queue` of /proc/self/net/tcp and tcp6 (proc(5), "tx_queue:rx_queue").
// At the drain deadline it tells how each dropped connection closes: close() on a socket with
// unread bytes sends RST instead of FIN (Linux tcp_close, counted as TcpExtTCPAbortOnClose), and a
// RST makes the peer's kernel discard what its process has not read yet. The harness's account of
// E1's count needs that split (harness/explain/deadline-accounting.ts).
import { readFile } from 'node:fs/promises';

/** `local|remote`, each `ip:port` as Node reports a socket's addresses (IPv4-mapped as IPv4). */
export const socketKey = (s: {
  localAddress?: string | undefined;
  localPort?: number | undefined;
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
}): string | undefined =>
  s.localAddress && s.remoteAddress && s.localPort && s.remotePort
    ? `${unmap(s.localAddress)}:${String(s.localPort)}|${unmap(s.remoteAddress)}:${String(s.remotePort)}`
    : undefined;

const unmap = (ip: string): string => ip.replace(/^::ffff:/, '');

export interface SocketQueues {
  /** Every socket of the table, by key. */
  seen: ReadonlySet<string>;
  /** Those with unread bytes (rx_queue > 0). */
  unread: ReadonlySet<string>;
}

/** `0100007F:1F90` (IPv4, little-endian) or 32 hex digits (IPv6, four little-endian words). */
function hexAddress(field: string): string | undefined {
  const [hex = '', portHex = ''] = field.split(':');
  const port = parseInt(portHex, 16);
  if (hex.length === 8) {
    const bytes = [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return `${bytes.join('.')}:${String(port)}`;
  }
  if (hex.length !== 32) return undefined;
  const words = [0, 8, 16, 24].map((i) => hex.slice(i, i + 8));
  const bytes = words.flatMap((w) => [6, 4, 2, 0].map((i) => parseInt(w.slice(i, i + 2), 16)));
  // IPv4-mapped (::ffff:a.b.c.d): as Node reports it on a dual-stack socket, less the prefix.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `${bytes.slice(12).join('.')}:${String(port)}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return `${groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::')}:${String(port)}`;
}

/** The rows of a /proc/net/tcp{,6} table (its header line skipped). */
export function parseSocketTable(text: string): { key: string; rxQueue: number }[] {
  return text
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const f = line.trim().split(/\s+/);
      const local = hexAddress(f[1] ?? '');
      const remote = hexAddress(f[2] ?? '');
      const rx = (f[4] ?? '').split(':')[1];
      return local && remote && rx !== undefined
        ? [{ key: `${local}|${remote}`, rxQueue: parseInt(rx, 16) }]
        : [];
    });
}

/**
 * This namespace's sockets and which hold unread bytes, and those of the namespaces of `procDirs`
 * (/proc/<pid> of a process in a pod's namespace, where in-pod listeners live: /proc/<pid>/net/tcp
 * is that namespace's table); undefined where no table can be read. Asynchronous: the loop keeps reading sockets
 * meanwhile (a synchronous read made the drop wait 39-59 ms with nothing read, which itself left
 * bytes unread: measured with --netns, 2026-11-25).
 */
export async function readSocketQueues(procDirs: readonly string[] = []): Promise<SocketQueues | undefined> {
  const seen = new Set<string>();
  const unread = new Set<string>();
  let read = false;
  const procs = ['/proc/self', ...procDirs];
  for (const table of procs.flatMap((proc) => [`${proc}/net/tcp`, `${proc}/net/tcp6`])) {
    let text: string;
    try {
      text = await readFile(table, 'utf8');
    } catch {
      continue;
    }
    read = true;
    for (const row of parseSocketTable(text)) {
      seen.add(row.key);
      if (row.rxQueue > 0) unread.add(row.key);
    }
  }
  return read ? { seen, unread } : undefined;
}
