import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { K6Binary } from '../tools/index.ts';
import { bundleK6Script } from './bundle-k6-script.ts';
import { readK6Records } from './k6-records.ts';
import type { RequestRecord } from './k6-records.ts';
import type { K6Summary } from './k6-summary.ts';
import { readK6Summary } from './k6-summary.ts';
import type { LoadCounts } from './load-counts.ts';
import { addRecord, createLoadCounts } from './load-counts.ts';
import type { LoadSpec } from './load-spec.ts';
import type { CpuUsage } from './cpu-sampler.ts';
import type { K6RunFiles } from './run-k6.ts';
import { runK6 } from './run-k6.ts';

export interface LoadResult {
  spec: LoadSpec;
  k6: K6Binary;
  summary: K6Summary;
  counts: LoadCounts;
  files: K6RunFiles;
  cpu: CpuUsage;
}

export interface RunLoadOptions {
  spec: LoadSpec;
  k6: K6Binary;
  workDir: string;
  signal?: AbortSignal;
  /** Sees every record during the one read of the records file (e.g. the tally). */
  onRecord?: (record: RequestRecord) => void;
  /** Told k6's PID once it runs (per-component CPU). */
  onSpawn?: (pid: number) => void;
  /** Called when k6 has exited, before its records are read: the end of the load. */
  onK6Exited?: () => void;
  /** The script, bundled already (a run does it before its load starts); default: bundled here. */
  bundlePath?: string;
}

/** The k6 script every load runs (k6-scripts/). */
export const K6_SCRIPT = 'fortio.ts';

/**
 * Bundles the fortio-like script, runs it with k6, and reads every request back. The record count
 * must equal k6's own `http_reqs`: a harness that loses requests cannot be trusted with 503 counts.
 */
export async function runLoad(options: RunLoadOptions): Promise<LoadResult> {
  await mkdir(options.workDir, { recursive: true });
  const bundlePath =
    options.bundlePath ??
    (await bundleK6Script({ script: K6_SCRIPT, outFile: join(options.workDir, 'fortio.js') }));
  const { files, cpu } = await runK6({
    k6Path: options.k6.path,
    bundlePath,
    spec: options.spec,
    workDir: options.workDir,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
  });
  options.onK6Exited?.();
  const summary = await readK6Summary(files.summaryPath);
  const counts = createLoadCounts();
  if (options.spec.records === false)
    return { spec: options.spec, k6: options.k6, summary, counts, files, cpu };
  const recorded = await readK6Records(files.recordsPath, (record) => {
    addRecord(counts, record);
    options.onRecord?.(record);
  });
  if (recorded !== summary.httpReqs) {
    throw new HarnessError(
      ErrorCode.LoadFailed,
      `k6 counted ${String(summary.httpReqs)} requests but the script recorded ${String(recorded)} (${files.recordsPath})`,
    );
  }
  return { spec: options.spec, k6: options.k6, summary, counts, files, cpu };
}
