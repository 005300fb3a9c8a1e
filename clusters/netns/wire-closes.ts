// What the gateway saw when a ztunnel closed its HBONE connections: every FIN and RST sent from a
// pod's :15008 towards the host, captured with tcpdump on the network world's uplink (every packet
// between a pod and the host crosses it). The kernel's segments, whoever's ztunnel sent them: the
// same record for istio/ztunnel's binary and ours, where neither's logs say it (the binary logs no
// close kind; ours reads its socket table only with --read-close-kinds).
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { execa } from 'execa';

/** The capture's file in the run's container-log folder (no pod's name starts with it). */
export const WIRE_CLOSES_LOG = 'wire_hbone-closes.log';

/** The port whose closes are captured: HBONE, where the gateway's tunnels end. */
export const HBONE_CLOSE_PORT = 15008;

export interface WireClose {
  /** The segment's capture time, wall clock (tcpdump -tt). */
  wallMs: number;
  /** ztunnel's side: pod IP:15008. */
  from: string;
  /** The peer (the gateway). */
  to: string;
  kind: 'FIN' | 'RST';
}

/** tcpdump's line: `<epoch s> IP <src ip>.<port> > <dst ip>.<port>: Flags [F.], ...`. */
const LINE = /^(\d+\.\d+) IP (\d+\.\d+\.\d+\.\d+)\.(\d+) > (\d+\.\d+\.\d+\.\d+)\.(\d+): Flags \[([A-Z.]+)\]/;

/** The closes in a capture's text; a segment with both FIN and RST counts as a RST. */
export function parseWireCloses(text: string): WireClose[] {
  const closes: WireClose[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, at = '', srcIp, srcPort, dstIp, dstPort, flags = ''] = m;
    const kind = flags.includes('R') ? 'RST' : flags.includes('F') ? 'FIN' : undefined;
    if (!kind) continue;
    closes.push({
      wallMs: Number(at) * 1000,
      from: `${String(srcIp)}:${String(srcPort)}`,
      to: `${String(dstIp)}:${String(dstPort)}`,
      kind,
    });
  }
  return closes;
}

/**
 * Per connection, how it was closed: its first FIN or RST (a RST after a FIN answers what the peer
 * wrote after the close; the close itself was the FIN). Only the segments of [fromMs, toMs) (wall).
 */
export function firstCloses(closes: readonly WireClose[], fromMs: number, toMs: number): WireClose[] {
  const first = new Map<string, WireClose>();
  for (const c of closes) {
    const key = `${c.from}>${c.to}`;
    const seen = first.get(key);
    if (!seen || c.wallMs < seen.wallMs) first.set(key, c);
  }
  return [...first.values()].filter((c) => c.wallMs >= fromMs && c.wallMs < toMs);
}

export interface CloseCapture {
  stop(): Promise<void>;
}

/** Why closes cannot be captured here, or undefined when they can. */
export async function wireCaptureUnavailable(): Promise<string | undefined> {
  const found = await execa('sh', ['-c', 'command -v tcpdump'], { reject: false });
  return found.exitCode === 0 ? undefined : 'tcpdump is not installed (the tcpdump package provides it)';
}

/**
 * Starts tcpdump (argv made by `inNs`, run in the world's cluster namespace) on `device`, writing
 * its lines to `logPath`; resolves once it listens. Stop ends it with SIGINT (tcpdump flushes).
 */
export async function startCloseCapture(options: {
  inNs: (argv: string[]) => string[];
  device: string;
  logPath: string;
}): Promise<CloseCapture> {
  const filter = `tcp src port ${String(HBONE_CLOSE_PORT)} and (tcp[tcpflags] & (tcp-fin|tcp-rst) != 0)`;
  const [file = '', ...args] = options.inNs(['tcpdump', '-i', options.device, '-l', '-nn', '-tt', filter]);
  const out = createWriteStream(options.logPath);
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const stderr: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tcpdump did not start listening: ${stderr.join(' | ')}`));
    }, 5000);
    lines.on('line', (line) => {
      stderr.push(line);
      if (line.startsWith('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`tcpdump exited: ${stderr.join(' | ')}`));
    });
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        child.kill('SIGINT');
        const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(killer);
        await new Promise<void>((resolve) => {
          out.end(resolve);
        });
      })()),
  };
}
