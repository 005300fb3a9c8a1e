// Our ztunnel's drain next to istio/ztunnel's, row by row: what a client sees, and whether it matches.
import type { DrainObservation } from './drain-probe.ts';

export interface ConformanceRow {
  what: string;
  ours: string;
  upstream: string;
  same: boolean;
}

/** Ms apart that still count as "at the same moment" (two processes, two schedulers). */
const TIMING_SLACK_MS = 500;

export function compareDrains(ours: DrainObservation, upstream: DrainObservation): ConformanceRow[] {
  const goaway = (o: DrainObservation): string =>
    o.goaway ? `code ${String(o.goaway.code)} at +${String(o.goaway.afterMs)} ms` : 'none';
  const end = (o: DrainObservation): string =>
    `${o.connectionEnd.how} at +${String(o.connectionEnd.afterMs)} ms`;
  const row = (what: string, a: string, b: string, same = a === b): ConformanceRow => ({
    what,
    ours: a,
    upstream: b,
    same,
  });
  const size = (n: number | undefined): string =>
    n === undefined
      ? '?'
      : n % 1048576 === 0
        ? `${String(n / 1048576)}M`
        : n % 1024 === 0
          ? `${String(n / 1024)}K`
          : String(n);
  const settings = ({ settings: x }: DrainObservation): string =>
    `window ${size(x.initialWindowSize)}/${size(x.connectionWindow)}, frame ${size(x.maxFrameSize)}, ` +
    `streams ${String(x.maxConcurrentStreams)}, headers ${size(x.maxHeaderListSize)}`;
  return [
    row('HTTP/2 settings (stream/conn window)', settings(ours), settings(upstream)),
    row(
      'GOAWAY at SIGTERM',
      goaway(ours),
      goaway(upstream),
      ours.goaway?.code === upstream.goaway?.code &&
        Math.abs((ours.goaway?.afterMs ?? 0) - (upstream.goaway?.afterMs ?? 0)) <= TIMING_SLACK_MS,
    ),
    row(
      'GOAWAYs (last stream ids)',
      ours.goaways.map(([, last]) => String(last)).join(', '),
      upstream.goaways.map(([, last]) => String(last)).join(', '),
    ),
    row('idle tunnel after SIGTERM', ours.idleTunnelAfterSigterm, upstream.idleTunnelAfterSigterm),
    row('new connection after SIGTERM', ours.newConnectionAfterSigterm, upstream.newConnectionAfterSigterm),
    row(
      'HBONE connection ends',
      end(ours),
      end(upstream),
      ours.connectionEnd.how === upstream.connectionEnd.how &&
        Math.abs(ours.connectionEnd.afterMs - upstream.connectionEnd.afterMs) <= TIMING_SLACK_MS,
    ),
    row('request in flight at the deadline', ours.inFlightRequest, upstream.inFlightRequest),
    // istio/ztunnel logs a force-closed connection when its task is dropped, as the process exits;
    // a line it never wrote is not a behaviour to copy, so only what it did log is compared.
    row(
      'access log error',
      ours.logErrors.join('; ') || '-',
      upstream.logErrors.join('; ') || '- (none logged before exit)',
      upstream.logErrors.length === 0 || ours.logErrors.join('; ') === upstream.logErrors.join('; '),
    ),
  ];
}

export function formatConformance(rows: ConformanceRow[], deadlineMs: number): string {
  const width = (pick: (r: ConformanceRow) => string, title: string): number =>
    Math.max(title.length, ...rows.map((r) => pick(r).length));
  const w = [
    width((r) => r.what, 'SIGTERM, then'),
    width((r) => r.ours, 'ours'),
    width((r) => r.upstream, 'istio/ztunnel'),
  ];
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(w[i] ?? 0)).join('  ');
  return [
    `drain of one pod's ztunnel, deadline ${String(deadlineMs)} ms: two HBONE tunnels, one idle, one with a request that outlasts the deadline`,
    line(['SIGTERM, then', 'ours', 'istio/ztunnel']) + '  same',
    ...rows.map((r) => line([r.what, r.ours, r.upstream]) + `  ${r.same ? 'yes' : 'NO'}`),
    '',
  ].join('\n');
}
