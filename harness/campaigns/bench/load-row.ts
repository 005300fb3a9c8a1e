import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runLoad } from '../../load/index.ts';
import type { LoadResult } from '../../load/index.ts';
import { isFortioOk } from '../../tally/index.ts';
import type { LoadGenerator } from '../../provision/index.ts';

export interface LoadBenchRow {
  connections: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  dropped: number;
  failed: number;
  /** What failed, as status:count. */
  failures: string;
  recordBytesPerRequest: number;
}

const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);

/** A row from the per-request records: rate over the records' own span, latency, what failed by status. */
function countedRow(
  connections: number,
  result: LoadResult,
  durations: number[],
): Omit<LoadBenchRow, 'recordBytesPerRequest'> {
  const { counts, summary } = result;
  const ok = [...counts.byStatus].filter(([s]) => isFortioOk(s)).reduce((n, [, c]) => n + c, 0);
  const sorted = Float64Array.from(durations).sort();
  return {
    connections,
    requests: counts.total,
    perSecond: counts.total / ((counts.lastEndWallMs - counts.firstStartWallMs) / 1000),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    dropped: summary.droppedIterations,
    failed: counts.total - ok,
    failures: [...counts.byStatus]
      .filter(([s]) => !isFortioOk(s))
      .map(([s, c]) => `status ${s === 0 ? '-1' : String(s)}:${String(c)}`)
      .join(' '),
  };
}

/** The generator at qps 0 against `url` through the harness's whole load path; one row per connection count. */
export async function measureLoad(options: {
  generator: LoadGenerator;
  url: string;
  connections: number[];
  durationS: number;
  workDir: string;
  signal: AbortSignal;
  /** false: no per-request records (their cost is the difference); failures not counted. */
  records?: boolean;
}): Promise<LoadBenchRow[]> {
  const rows: LoadBenchRow[] = [];
  for (const connections of options.connections) {
    const durations: number[] = [];
    const result = await runLoad({
      generator: options.generator,
      workDir: join(options.workDir, `c${String(connections)}`),
      signal: options.signal,
      onRecord: (r) => durations.push(r.durationMs),
      spec: {
        targets: [options.url],
        qps: 0,
        connections,
        durationS: options.durationS,
        timeoutS: 10,
        records: options.records ?? true,
      },
    });
    if (options.records === false) {
      const { summary } = result;
      rows.push({
        connections,
        requests: summary.httpReqs,
        perSecond: summary.httpReqs / options.durationS,
        p50Ms: NaN,
        p99Ms: NaN,
        dropped: summary.droppedIterations,
        failed: NaN,
        failures: 'records off: not counted',
        recordBytesPerRequest: 0,
      });
      continue;
    }
    rows.push({
      ...countedRow(connections, result, durations),
      recordBytesPerRequest: (await stat(result.files.recordsPath)).size / result.counts.total,
    });
  }
  return rows;
}
