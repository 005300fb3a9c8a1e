// What every load generator's process shares, whichever generator it is (run-fortio.ts, run-k6.ts):
// how it is started beside the cluster, stopped by Ctrl-C, watched while it runs, and what its end
// means for the run.
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { CpuUsage } from './cpu-sampler.ts';
import { startCpuSampler } from './cpu-sampler.ts';

export interface GeneratorProcessOptions {
  signal?: AbortSignal;
  /** Told the generator's PID once it runs (per-component CPU). */
  onSpawn?: (pid: number) => void;
  /** The command line as it is started (e.g. inside a cpu cgroup); its PID stays the generator's. */
  wrapCommand?: (argv: readonly string[]) => string[];
}

/** How long a generator gets to stop after SIGTERM (k6 writes its summary then) before SIGKILL. */
export const GENERATOR_KILL_AFTER_MS = 4000;

/** The file to start and its arguments: `argv` as wrapCommand wraps it. */
export function commandOf(argv: readonly string[], options: GeneratorProcessOptions): [string, string[]] {
  const [file = '', ...args] = options.wrapCommand ? options.wrapCommand(argv) : argv;
  return [file, args];
}

/** execa's options every generator runs with: no stdin, its exit read rather than thrown, Ctrl-C stops it. */
export function generatorExecaOptions(options: GeneratorProcessOptions) {
  return {
    stdin: 'ignore',
    reject: false,
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    forceKillAfterDelay: GENERATOR_KILL_AFTER_MS,
  } as const;
}

/** Until the generator ends: its CPU sampled from /proc, its PID told to the run. */
export async function watchGenerator<P extends Promise<unknown> & { pid?: number | undefined }>(
  subprocess: P,
  options: GeneratorProcessOptions,
): Promise<{ result: Awaited<P>; cpu: CpuUsage }> {
  const sampler = subprocess.pid === undefined ? undefined : startCpuSampler(subprocess.pid);
  if (subprocess.pid !== undefined) options.onSpawn?.(subprocess.pid);
  const result = await subprocess;
  const cpu = sampler?.stop() ?? { processAvgPct: 0, processMaxPct: 0, machineBusyPct: 0, samples: 0 };
  return { result, cpu };
}

/**
 * A generator's end as the run sees it: stopped by Ctrl-C, the run is aborted; any end but exit 0
 * is a load failure (exit 3), saying how it ended and where to look.
 */
export function generatorFailure(
  name: string,
  result: { isCanceled: boolean; exitCode?: number | undefined; signal?: string | undefined },
  seeAlso: string,
): HarnessError | undefined {
  if (result.isCanceled)
    return new HarnessError(ErrorCode.Aborted, `${name} was stopped before the end of its run`);
  if (result.exitCode === 0) return undefined;
  const ended = result.signal
    ? `was killed by ${result.signal}`
    : `exited with code ${String(result.exitCode)}`;
  return new HarnessError(ErrorCode.LoadFailed, `${name} ${ended}; see ${seeAlso}`);
}
