// Our ztunnel's drain next to istio/ztunnel's, row by row: what a client sees, and whether it matches.
import type { ConnectObservation } from './connect-probe.ts';
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
    // What istio/ztunnel logs for a force-closed connection races the connection's own end: seen
    // here `connection closed due to connection drain` (its task dropped first), `while closing
    // connection: receive: io error: stream closed because of a broken pipe` (its relay failed
    // first), or nothing (the process exited first). Compared: that an error line is written; a line
    // upstream never wrote is no behaviour to copy.
    row(
      'access log error',
      ours.logErrors.join('; ') || '-',
      upstream.logErrors.join('; ') || '- (none logged before exit)',
      upstream.logErrors.length === 0 || ours.logErrors.length > 0,
    ),
  ];
}

export function compareConnects(ours: ConnectObservation, upstream: ConnectObservation): ConformanceRow[] {
  const row = (what: string, pick: (o: ConnectObservation) => string): ConformanceRow => ({
    what,
    ours: pick(ours),
    upstream: pick(upstream),
    same: pick(ours) === pick(upstream),
  });
  return [
    row("CONNECT to the pod's app", (o) => o.app),
    row('CONNECT to a closed port of the pod', (o) => o.closedPort),
    row('CONNECT naming another address', (o) => o.foreignAddress),
  ];
}

/** One table: a title line, its first column's heading, its rows. */
export interface ConformanceSection {
  title: string;
  heading: string;
  rows: ConformanceRow[];
}

/** The sections as aligned tables (one set of column widths for all), each row saying if it matches. */
export function formatConformance(sections: ConformanceSection[]): string {
  const rows = sections.flatMap((s) => s.rows);
  const width = (pick: (r: ConformanceRow) => string, titles: string[]): number =>
    Math.max(...titles.map((t) => t.length), ...rows.map((r) => pick(r).length));
  const w = [
    width(
      (r) => r.what,
      sections.map((s) => s.heading),
    ),
    width((r) => r.ours, ['ours']),
    width((r) => r.upstream, ['istio/ztunnel']),
  ];
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(w[i] ?? 0)).join('  ');
  return sections
    .flatMap((s) => [
      s.title,
      line([s.heading, 'ours', 'istio/ztunnel']) + '  same',
      ...s.rows.map((r) => line([r.what, r.ours, r.upstream]) + `  ${r.same ? 'yes' : 'NO'}`),
      '',
    ])
    .join('\n');
}
