import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import type { RequestRecord } from '../load/index.ts';

/** The gateway logs a request at its own receipt, a little after the client sent it. */
const SLACK_MS = 5;

/**
 * The gateway's response flags for a generator's failed request, from the gateway's own access log:
 * fortio cannot record a response header per call (k6 records `x-response-flags`), so each non-2xx
 * record takes the unmatched gateway failure with the same status whose start lies inside the
 * record's lifetime, the nearest in time. Every line is used once; unmatched records keep no flag.
 */
export function createFlagJoin(failures: readonly ParsedAccessLog[]): (record: RequestRecord) => void {
  const open = [...failures].sort((a, b) => a.startWallMs - b.startWallMs);
  const used = new Set<ParsedAccessLog>();
  return (record) => {
    if (record.flag !== '' || record.status === 0 || (record.status >= 200 && record.status < 300)) return;
    const from = record.startWallMs - SLACK_MS;
    const to = record.startWallMs + record.durationMs + SLACK_MS;
    let best: ParsedAccessLog | undefined;
    for (const entry of open) {
      if (entry.startWallMs > to) break;
      if (entry.startWallMs < from || used.has(entry) || entry.status !== record.status) continue;
      if (
        !best ||
        Math.abs(entry.startWallMs - record.startWallMs) < Math.abs(best.startWallMs - record.startWallMs)
      )
        best = entry;
    }
    if (!best) return;
    used.add(best);
    record.flag = best.flags.join(',');
  };
}
