import { join } from 'node:path';
import { createProgress, formatDuration, makeDirectory, startTicker } from '../../../lib/index.ts';
import type { Clock } from '../../../lib/index.ts';
import type { LoadResult } from '../../load/index.ts';
import { runLoad } from '../../load/index.ts';
import { createRunId } from '../../record/run-id.ts';
import { chooseGenerator } from '../../provision/index.ts';
import type { GeneratorChoice } from '../../provision/index.ts';
import { isFortioOk } from '../../tally/index.ts';
import { markAbortedOnError, writeCommandVerdict } from './command-verdict.ts';
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
  /** Requests that were not OK (fortio's codeIsOK: 2xx and 418): the smoke passes with none. */
  failed: number;
}

export async function runLoadSmoke(options: LoadSmokeOptions): Promise<LoadSmokeRun> {
  const generator = await chooseGenerator(options.generator, {
    signal: options.signal,
    write: options.write,
  });
  const runId = createRunId('load-smoke', Date.now());
  const runDir = join(options.resultsDir, runId);
  await makeDirectory(runDir);
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
    return await markAbortedOnError(runDir, 'load-smoke', async () => {
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
      const failed = [...result.counts.byStatus]
        .filter(([status]) => !isFortioOk(status))
        .reduce((n, [, c]) => n + c, 0);
      await writeCommandVerdict(runDir, {
        command: 'load-smoke',
        verdict: failed === 0 ? 'pass' : 'fail',
        reason: `${String(failed)} of ${String(result.counts.total)} requests not OK`,
      });
      return { runId, runDir, result, failed };
    });
  } finally {
    stopTicker();
    await target.close();
  }
}
