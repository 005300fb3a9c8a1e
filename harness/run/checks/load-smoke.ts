import { join } from 'node:path';
import { createProgress, formatDuration, startTicker } from '../../../lib/index.ts';
import type { Clock } from '../../../lib/index.ts';
import type { LoadResult } from '../load/index.ts';
import { runLoad } from '../load/index.ts';
import { createRunId } from '../../results/run-id.ts';
import { chooseGenerator } from '../../tools/index.ts';
import type { GeneratorChoice } from '../../tools/index.ts';
import { startLocalTarget } from './local-target.ts';

/**
 * `load-smoke`: the load generator (fortio, or the user's k6) against a local HTTP target, no cluster.
 * It proves the load path (the generator found or provisioned, every request read back and reconciled
 * with the generator's own count) on any machine.
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
  generator: GeneratorChoice;
}

export interface LoadSmokeRun {
  runId: string;
  runDir: string;
  result: LoadResult;
}

export async function runLoadSmoke(options: LoadSmokeOptions): Promise<LoadSmokeRun> {
  const generator = await chooseGenerator(options.generator, {
    signal: options.signal,
    write: options.write,
  });
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
        `${generator.kind} ${String(options.connections)} connections -> ${target.url}${options.path}, ${formatDuration(left)} of load left`,
      );
    },
  });
  try {
    const result = await runLoad({
      generator,
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
