import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runLoad } from '../load/index.ts';
import type { LoadResult } from '../load/index.ts';
import { isFortioOk } from '../tally/index.ts';
import type { K6Binary } from '../tools/index.ts';

export interface K6BenchRow {
  connections: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  dropped: number;
  failed: number;
  /** What failed, as status:count and k6 error code:count. */
  failures: string;
  recordBytesPerRequest: number;
}

/** A row from k6's per-request records: rate over the records' own span, what failed by status and error code. */
function countedRow(
  connections: number,
  counts: LoadResult['counts'],
  summary: LoadResult['summary'],
): Omit<K6BenchRow, 'recordBytesPerRequest'> {
  const ok = [...counts.byStatus].filter(([s]) => isFortioOk(s)).reduce((n, [, c]) => n + c, 0);
  return {
    connections,
    requests: counts.total,
    perSecond: counts.total / ((counts.lastEndWallMs - counts.firstStartWallMs) / 1000),
    p50Ms: summary.durationMs.med,
    p99Ms: summary.durationMs.p99,
    dropped: summary.droppedIterations,
    failed: counts.total - ok,
    failures: [
      ...[...counts.byStatus]
        .filter(([s]) => s !== 418 && (s < 200 || s >= 300))
        .map(([s, c]) => `status ${String(s)}:${String(c)}`),
      ...[...counts.byErrorCode]
        .filter(([e]) => e !== 0 && e !== 1418)
        .map(([e, c]) => `k6 ${String(e)}:${String(c)}`),
    ].join(' '),
  };
}

/** k6 at qps 0 against `url` through the harness's whole load path; one row per connection count. */
export async function measureK6(options: {
  k6: K6Binary;
  url: string;
  connections: number[];
  durationS: number;
  workDir: string;
  signal: AbortSignal;
  /** false: k6 writes no per-request records (their cost is the difference); failures not counted. */
  records?: boolean;
}): Promise<K6BenchRow[]> {
  const rows: K6BenchRow[] = [];
  for (const connections of options.connections) {
    const result = await runLoad({
      k6: options.k6,
      workDir: join(options.workDir, `c${String(connections)}`),
      signal: options.signal,
      spec: {
        targets: [options.url],
        qps: 0,
        connections,
        durationS: options.durationS,
        timeoutS: 10,
        records: options.records ?? true,
      },
    });
    const { counts, summary } = result;
    if (options.records === false) {
      rows.push({
        connections,
        requests: summary.httpReqs,
        perSecond: summary.httpReqs / options.durationS,
        p50Ms: summary.durationMs.med,
        p99Ms: summary.durationMs.p99,
        dropped: summary.droppedIterations,
        failed: NaN,
        failures: 'records off: not counted',
        recordBytesPerRequest: 0,
      });
      continue;
    }
    rows.push({
      ...countedRow(connections, result.counts, summary),
      recordBytesPerRequest: (await stat(result.files.recordsPath)).size / counts.total,
    });
  }
  return rows;
}
