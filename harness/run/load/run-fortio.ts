import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import type { CpuUsage } from './cpu-sampler.ts';
import { startCpuSampler } from './cpu-sampler.ts';
import type { LoadSpec } from './load-spec.ts';

export interface FortioRunFiles {
  /** One JSON line per call (`-access-log-file`). */
  accessLogPath: string;
  /** fortio's own result (`-json`), which `fortio report` reads. */
  jsonPath: string;
  /** Everything fortio printed (it writes its log and its summary to stderr). */
  logPath: string;
}

/** How long fortio gets to stop after SIGTERM before SIGKILL. */
const FORTIO_KILL_AFTER_MS = 4000;

/** Go duration text for seconds: 60s, 0.5s. */
const goSeconds = (s: number): string => `${String(s)}s`;

/**
 * fortio's command line for a load, as the documents ran it (ASM: `fortio load -qps 0 -c 1000 -t 60s
 * -timeout 10s URL`), plus what the harness reads back: the access log and the JSON result.
 * `-allow-initial-errors`: without it fortio aborts when a connection's warm-up call fails.
 */
export function fortioArgs(spec: LoadSpec, files: FortioRunFiles): string[] {
  const [url = '', ...more] = spec.targets;
  if (more.length > 0)
    throw new HarnessError(
      ErrorCode.BadInput,
      `fortio takes one URL, got ${String(spec.targets.length)}: ${spec.targets.join(' ')}`,
    );
  if ((spec.outputs ?? []).length > 0)
    throw new HarnessError(
      ErrorCode.BadInput,
      `k6 outputs (--k6-out) need --generator k6, got ${JSON.stringify(spec.outputs)} with fortio`,
    );
  return [
    'load',
    '-qps',
    String(spec.qps),
    '-c',
    String(spec.connections),
    ...(spec.exactCalls ? ['-n', String(spec.exactCalls)] : ['-t', goSeconds(spec.durationS)]),
    '-timeout',
    goSeconds(spec.timeoutS),
    '-allow-initial-errors',
    // At a fixed rate, each connection's start is spread over its period, so the rate is steady (the
    // 1.28 report's "steady ~50 RPS"); fortio's default starts every connection at once, and c
    // connections then send c requests together every c/qps seconds.
    ...(spec.qps > 0 ? ['-uniform'] : []),
    ...(spec.newConnectionPerRequest ? ['-keepalive=false'] : []),
    '-access-log-file',
    files.accessLogPath,
    '-access-log-format',
    'json',
    '-json',
    files.jsonPath,
    url,
  ];
}

/** Runs `fortio load` to completion. Cancelling `signal` stops fortio (SIGTERM, SIGKILL after 4 s). */
export async function runFortio(options: {
  fortioPath: string;
  spec: LoadSpec;
  workDir: string;
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  /** fortio's command line as it is started (e.g. inside a cpu cgroup); its PID stays fortio's. */
  wrapCommand?: (argv: readonly string[]) => string[];
}): Promise<{ files: FortioRunFiles; cpu: CpuUsage }> {
  const files: FortioRunFiles = {
    accessLogPath: join(options.workDir, 'access.jsonl'),
    jsonPath: join(options.workDir, 'fortio.json'),
    logPath: join(options.workDir, 'fortio.log'),
  };
  const argv = [options.fortioPath, ...fortioArgs(options.spec, files)];
  const [file = '', ...args] = options.wrapCommand ? options.wrapCommand(argv) : argv;
  // Both streams appended to one file (O_APPEND: each write lands whole, in the order written).
  const subprocess = execa(file, args, {
    cwd: options.workDir,
    stdin: 'ignore',
    stdout: { file: files.logPath, append: true },
    stderr: { file: files.logPath, append: true },
    reject: false,
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    forceKillAfterDelay: FORTIO_KILL_AFTER_MS,
  });
  const sampler = subprocess.pid === undefined ? undefined : startCpuSampler(subprocess.pid);
  if (subprocess.pid !== undefined) options.onSpawn?.(subprocess.pid);
  const result = await subprocess;
  const cpu = sampler?.stop() ?? { processAvgPct: 0, processMaxPct: 0, machineBusyPct: 0, samples: 0 };
  if (result.isCanceled)
    throw new HarnessError(ErrorCode.Aborted, 'fortio was stopped before the end of its run');
  if (result.exitCode !== 0)
    throw new HarnessError(
      ErrorCode.LoadFailed,
      `fortio exited with code ${String(result.exitCode)}; see ${files.logPath}`,
    );
  return { files, cpu };
}
