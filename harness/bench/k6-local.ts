import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../load/index.ts';
import { startLocalTarget } from '../scenarios/local-target.ts';
import type { K6Binary } from '../tools/index.ts';

export interface K6BenchRow {
  connections: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  dropped: number;
  recordBytesPerRequest: number;
}

/** k6 at qps 0 against a local Node HTTP target, through the harness's whole load path. */
export async function benchK6Local(options: {
  k6: K6Binary;
  connections: number[];
  durationS: number;
  signal: AbortSignal;
}): Promise<K6BenchRow[]> {
  const workRoot = await mkdtemp(join(tmpdir(), 'bench-k6-'));
  const target = await startLocalTarget();
  const rows: K6BenchRow[] = [];
  try {
    for (const connections of options.connections) {
      const result = await runLoad({
        k6: options.k6,
        workDir: join(workRoot, `c${String(connections)}`),
        signal: options.signal,
        spec: {
          targets: [`${target.url}/status/418`],
          qps: 0,
          connections,
          durationS: options.durationS,
          timeoutS: 10,
        },
      });
      const { counts, summary } = result;
      rows.push({
        connections,
        requests: counts.total,
        perSecond: counts.total / ((counts.lastEndWallMs - counts.firstStartWallMs) / 1000),
        p50Ms: summary.durationMs.med,
        p99Ms: summary.durationMs.p99,
        dropped: summary.droppedIterations,
        recordBytesPerRequest: (await stat(result.files.recordsPath)).size / counts.total,
      });
    }
  } finally {
    await target.close();
    await rm(workRoot, { recursive: true, force: true });
  }
  return rows;
}
