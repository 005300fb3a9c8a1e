import { join } from 'node:path';
import { createProgress, formatDuration, startTicker } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { LoadResult } from '../load/index.ts';
import { runLoad } from '../load/index.ts';
import { createRunId } from '../results/run-id.ts';
import { ensureK6 } from '../tools/index.ts';
import { startLocalTarget } from './local-target.ts';

/**
 * `load-smoke`: fortio-like k6 load against a local HTTP target, no cluster. It proves the load path
 * (k6 provisioned, script bundled, every request read back and reconciled with k6's count) on any
 * machine; the cluster scenarios (ztunnel-upgrade, workload-rollout) arrive with the local cluster.
 */
export interface LoadSmokeOptions {
  qps: number;
  connections: number;
  durationS: number;
  timeoutS: number;
  path: string;
  resultsDir: string;
  clock: Clock;
  signal: AbortSignal;
  write: (text: string) => void;
}

export interface LoadSmokeRun {
  runId: string;
  runDir: string;
  result: LoadResult;
}

export async function runLoadSmoke(options: LoadSmokeOptions): Promise<LoadSmokeRun> {
  const k6 = await ensureK6({ signal: options.signal, clock: options.clock, write: options.write });
  const runId = createRunId('load-smoke', Date.now());
  const runDir = join(options.resultsDir, runId);
  const target = await startLocalTarget();
  const progress = createProgress({ phase: 'load', clock: options.clock, write: options.write });
  const totalMs = options.durationS * 1000;
  const startMs = options.clock.now();
  const stopTicker = startTicker({
    clock: options.clock,
    intervalMs: 1000,
    signal: options.signal,
    tick: () => {
      const elapsedMs = options.clock.now() - startMs;
      const left = Math.max(0, totalMs - elapsedMs);
      progress.update(
        `k6 ${String(options.connections)} connections -> ${target.url}${options.path}, ${formatDuration(left)} of load left`,
      );
    },
  });
  try {
    const result = await runLoad({
      k6,
      workDir: runDir,
      signal: options.signal,
      spec: {
        targets: [`${target.url}${options.path}`],
        qps: options.qps,
        connections: options.connections,
        durationS: options.durationS,
        timeoutS: options.timeoutS,
      },
    });
    progress.finish(`${String(result.counts.total)} requests`);
    return { runId, runDir, result };
  } finally {
    stopTicker();
    await target.close();
  }
}
