import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LifecycleEvent } from '../../clusters/events.ts';
import { parseClientRequest } from '../../apps/client/client-load.ts';
import type { CpuSample } from '../observe/cpu-monitor.ts';

/**
 * What seed 003's per-pod drain options change, measured from the components' own logs (E5, with a
 * meshed client pod calling httpbin through its node's ztunnel while httpbin rolls out):
 * - the client app's errors;
 * - stale pooled HBONE connections: the client ztunnel's connections to a terminating pod still open
 *   when that pod's network went (sandbox-removed), and how long they lingered after it;
 * - PINGs the pool sent on them after that, and the ping timeouts that finally dropped them;
 * - new HBONE connections per app connection while the pod was terminating but still serving
 *   (deletion to sandbox removal): the istio/istio#51855 concern with a GOAWAY at termination start;
 * - TLS close_notify the server ztunnels sent (option 2's graceful end).
 */
export interface DrainOptionMetrics {
  clientRequests: number;
  clientFailed: number;
  staleConnections: number;
  /** Longest time a stale connection stayed in the pool after its pod's network went (to the end of the run if it never left). */
  staleLingerMaxMs: number;
  /** Stale connections still open when the run ended. */
  staleOpenAtEnd: number;
  pingsAfterGone: number;
  pingTimeouts: number;
  hboneOpenedWhileTerminating: number;
  appConnectionsWhileTerminating: number;
  closeNotifySent: number;
  /** Mean CPU of the client's node's ztunnel over the load, % of one core (from the CPU monitor). */
  clientZtunnelCpuPct?: number;
}

interface PoolLine {
  atMs: number;
  type: string;
  conn?: number;
  dstAddr?: string;
}

/** `<iso>\tinfo\tpool\thbone pool opened\tinstance="..." conn=3 dstAddr=127.1.2.1:15008` (ztunnel's format) */
const POOL_LINE = /^(\S+)\s+\w+\s+\S+\s+hbone pool (\S+)(.*)$/;
/** An outbound `connection complete` line: when it ended, how long it lasted, which workload. */
const OUTBOUND_LINE =
  /^(\S+)\s+\w+\s+access\s+connection complete\s.*\bdst\.workload="?([^"\s]+)"? .*\bdirection="?outbound\b.*\bduration="?(\d+)ms/;
const CLOSE_NOTIFY_LINE = /\bpod drained at CNI DEL\b.*\bclose_notify=(\d+)/;

const field = (rest: string, name: string): string | undefined =>
  new RegExp(`\\b${name}=(\\S+)`).exec(rest)?.[1];

async function readLogs(logDir: string, match: RegExp): Promise<Map<string, string[]>> {
  const names = (await readdir(logDir).catch(() => [] as string[])).filter((n) => match.test(n));
  const out = new Map<string, string[]>();
  for (const name of names) out.set(name, (await readFile(join(logDir, name), 'utf8')).split('\n'));
  return out;
}

/** The pods' addresses and nodes from the pod-created events (`<podIp> (app <appIp>)`). */
function podsOf(events: readonly LifecycleEvent[]): Map<string, { ip: string; node: string }> {
  const pods = new Map<string, { ip: string; node: string }>();
  for (const e of events) {
    const ip = /^(\d+\.\d+\.\d+\.\d+)\b/.exec(e.detail ?? '')?.[1];
    if (e.kind === 'pod-created' && ip && e.node) pods.set(e.object, { ip, node: e.node });
  }
  return pods;
}

type PodAddresses = ReadonlyMap<string, { ip: string; node: string }>;
type OutboundLine = { startMs: number; workload: string };
/** One terminating httpbin pod: from its deletion to its network going away. */
type Window = { name: string; dst: string; deleting: number; gone: number };

/** The client node ztunnel's pool and outbound lines, and every ztunnel's close_notify count. */
function readZtunnelLines(
  ztunnelLogs: ReadonlyMap<string, string[]>,
  pods: PodAddresses,
  clientNode: string | undefined,
  runMs: (iso: string) => number,
): { poolLines: PoolLine[]; outbound: OutboundLine[]; closeNotifySent: number } {
  const ztunnelNode = (name: string): string | undefined => {
    const key = `istio-system/${name.replace(/^istio-system_/, '').replace(/_istio-proxy\.log$/, '')}`;
    return pods.get(key)?.node;
  };
  const poolLines: PoolLine[] = [];
  const outbound: OutboundLine[] = [];
  let closeNotifySent = 0;
  for (const [name, lines] of ztunnelLogs) {
    const onClientNode = ztunnelNode(name) === clientNode;
    for (const line of lines) {
      const cn = CLOSE_NOTIFY_LINE.exec(line);
      if (cn) closeNotifySent += Number(cn[1]);
      if (!onClientNode) continue;
      const p = POOL_LINE.exec(line);
      if (p) {
        const rest = p[3] ?? '';
        const conn = field(rest, 'conn');
        const dst = field(rest, 'dstAddr');
        poolLines.push({
          atMs: runMs(p[1] ?? ''),
          type: p[2] ?? '',
          ...(conn === undefined ? {} : { conn: Number(conn) }),
          ...(dst === undefined ? {} : { dstAddr: dst }),
        });
        continue;
      }
      const o = OUTBOUND_LINE.exec(line);
      if (o) outbound.push({ startMs: runMs(o[1] ?? '') - Number(o[3]), workload: o[2] ?? '' });
    }
  }
  return { poolLines, outbound, closeNotifySent };
}

function terminatingWindows(pods: PodAddresses, events: readonly LifecycleEvent[]): Window[] {
  return [...pods]
    .filter(([key]) => key.startsWith('default/httpbin-'))
    .flatMap(([key, pod]) => {
      const deleting = events.find((e) => e.kind === 'pod-deleting' && e.object === key)?.atMs;
      const gone = events.find((e) => e.kind === 'sandbox-removed' && e.object === key)?.atMs;
      return deleting === undefined || gone === undefined
        ? []
        : [{ name: key.split('/')[1] ?? key, dst: `${pod.ip}:15008`, deleting, gone }];
    });
}

/** Stale pooled connections, PINGs to a gone pod, new HBONE connections per app connection. */
function windowFigures(
  windows: readonly Window[],
  poolLines: readonly PoolLine[],
  outbound: readonly OutboundLine[],
  endMs: number,
) {
  const f = {
    staleConnections: 0,
    staleLingerMaxMs: 0,
    staleOpenAtEnd: 0,
    pingsAfterGone: 0,
    pingTimeouts: 0,
    hboneOpenedWhileTerminating: 0,
    appConnectionsWhileTerminating: 0,
  };
  for (const w of windows) {
    const toPod = poolLines.filter((l) => l.dstAddr === w.dst);
    f.hboneOpenedWhileTerminating += toPod.filter(
      (l) => l.type === 'opened' && l.atMs >= w.deleting && l.atMs < w.gone,
    ).length;
    f.appConnectionsWhileTerminating += outbound.filter(
      (o) => o.workload === w.name && o.startMs >= w.deleting && o.startMs < w.gone,
    ).length;
    // Stale: still in the pool (taking new streams) when the pod's network went.
    for (const o of toPod.filter((l) => l.type === 'opened' && l.atMs < w.gone)) {
      const left = toPod.find((l) => (l.type === 'removed' || l.type === 'closed') && l.conn === o.conn);
      if (left && left.atMs <= w.gone) continue;
      f.staleConnections++;
      if (!left) f.staleOpenAtEnd++;
      f.staleLingerMaxMs = Math.max(f.staleLingerMaxMs, (left?.atMs ?? endMs) - w.gone);
      const after = toPod.filter((l) => l.conn === o.conn && l.atMs > w.gone);
      f.pingsAfterGone += after.filter((l) => l.type === 'ping').length;
      f.pingTimeouts += after.filter((l) => l.type === 'ping-timeout').length;
    }
  }
  return { ...f, staleLingerMaxMs: Math.round(f.staleLingerMaxMs) };
}

export async function measureDrainOptions(options: {
  logDir: string;
  events: readonly LifecycleEvent[];
  wallOffsetMs: number;
  /** When the load ended, on the run clock (stale connections still open then are censored there). */
  endMs: number;
  /** The CPU monitor's samples (component = `namespace/pod`). */
  cpuSamples?: readonly CpuSample[];
}): Promise<DrainOptionMetrics | undefined> {
  const clientLogs = await readLogs(options.logDir, /^default_client-.*_client\.log$/);
  if (clientLogs.size === 0) return undefined;
  const requests = [...clientLogs.values()].flat().flatMap((l) => parseClientRequest(l) ?? []);
  const pods = podsOf(options.events);
  const clientNode = [...pods].find(([key]) => key.startsWith('default/client-'))?.[1].node;
  const { poolLines, outbound, closeNotifySent } = readZtunnelLines(
    await readLogs(options.logDir, /^istio-system_ztunnel-.*\.log$/),
    pods,
    clientNode,
    (iso) => Date.parse(iso) - options.wallOffsetMs,
  );
  return {
    clientRequests: requests.length,
    clientFailed: requests.filter((r) => r.status !== 418 && (r.status < 200 || r.status >= 300)).length,
    ...windowFigures(terminatingWindows(pods, options.events), poolLines, outbound, options.endMs),
    closeNotifySent,
    ...clientZtunnelCpu(options.cpuSamples ?? [], pods, clientNode),
  };
}

/** Mean over the samples of the summed CPU of the ztunnel pods on the client's node. */
function clientZtunnelCpu(
  samples: readonly CpuSample[],
  pods: ReadonlyMap<string, { node: string }>,
  clientNode: string | undefined,
): { clientZtunnelCpuPct?: number } {
  const onNode = (component: string): boolean =>
    component.startsWith('istio-system/ztunnel') && pods.get(component)?.node === clientNode;
  const byTick = new Map<number, number>();
  for (const s of samples) if (onNode(s.component)) byTick.set(s.atMs, (byTick.get(s.atMs) ?? 0) + s.pct);
  if (byTick.size === 0) return {};
  const sums = [...byTick.values()];
  return { clientZtunnelCpuPct: sums.reduce((a, b) => a + b, 0) / sums.length };
}
