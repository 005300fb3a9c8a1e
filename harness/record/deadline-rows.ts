import type { CsvRow } from './write-csv.ts';
import type { DeadlineAccount } from '../explain/deadline-accounting.ts';

/**
 * deadlines.csv: one row per drain deadline inside the load, numbered from 1 in time order, with
 * its account (deadline-accounting.ts); deadline-trace.csv: the same deadlines' 100 ms buckets.
 */
export function deadlineRows(
  accounts: readonly { atMs: number; object: string; account: DeadlineAccount }[],
  loadStartMs: number,
): { deadlines: CsvRow[]; trace: CsvRow[] } {
  const deadlines: CsvRow[] = [];
  const trace: CsvRow[] = [];
  accounts.forEach(({ atMs, object, account: a }, i) => {
    deadlines.push({
      deadline: i + 1,
      t_s: ((atMs - loadStartMs) / 1000).toFixed(3),
      ztunnel: object,
      lost: a.count,
      predicted_reset: a.predicted.toFixed(2),
      predicted_fin: a.predictedFin.toFixed(2),
      band_low: a.interval[0],
      band_high: a.interval[1],
      inside: a.inside ? 1 : 0,
      closed_connections: a.closedConnections,
      rate_per_s: a.ratePerS.toFixed(0),
      t_past_ms: a.pastGatewayMs.toFixed(3),
      l_ms: a.reactionMs.toFixed(3),
      in_flight_inside: a.inFlightInside ?? '',
      cpu_wait_pct: a.cpuWaitShare === undefined ? '' : (a.cpuWaitShare * 100).toFixed(1),
      reset_share: a.closeKinds ? a.closeKinds.resetShare.toFixed(3) : '',
      in_flight_on_fin: a.closeKinds?.inFlightOnFin ?? '',
      wire_fin: a.wire?.fin ?? '',
      wire_rst: a.wire?.rst ?? '',
    });
    for (const b of a.trace)
      trace.push({
        deadline: i + 1,
        from_ms: b.fromMs,
        requests: b.requests,
        failed: b.failed,
        t_past_ms: b.pastGatewayMs === undefined ? '' : b.pastGatewayMs.toFixed(3),
      });
  });
  return { deadlines, trace };
}
