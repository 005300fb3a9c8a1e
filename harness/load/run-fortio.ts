import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { CpuUsage } from './cpu-sampler.ts';
import { commandOf, generatorExecaOptions, generatorFailure, watchGenerator } from './generator-process.ts';
import type { GeneratorProcessOptions } from './generator-process.ts';
import { createFortioLog } from './fortio-log.ts';
import type { FortioLog } from './fortio-log.ts';
import type { LoadSpec } from './load-spec.ts';

export interface FortioRunFiles {
  /** One JSON line per call (`-access-log-file`). */
  accessLogPath: string;
  /** fortio's own result (`-json`), which `fortio report` reads. */
  jsonPath: string;
  /** What fortio printed (its log and its summary, on stderr), repeats counted (fortio-log.ts). */
  logPath: string;
}

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
    ...(spec.noCatchUp ? ['-nocatchup'] : []),
    '-access-log-file',
    files.accessLogPath,
    '-access-log-format',
    'json',
    '-json',
    files.jsonPath,
    url,
  ];
}

/**
 * Reads fortio's output as it comes into `log` and writes the condensed log to `path`. Waiting on the
 * file's drain holds the pipe: fortio then waits on its own writes, as it would on a slow terminal.
 */
async function condenseOutput(output: Readable, log: FortioLog, path: string): Promise<void> {
  const file = createWriteStream(path, { flags: 'a' });
  const written = once(file, 'close');
  try {
    for await (const line of createInterface({ input: output, crlfDelay: Infinity })) {
      const kept = log.add(line);
      if (kept !== undefined && !file.write(`${kept}\n`)) await once(file, 'drain');
    }
    for (const line of log.end()) file.write(`${line}\n`);
  } finally {
    file.end();
    await written;
  }
}

/** Runs `fortio load` to completion. Cancelling `signal` stops fortio (SIGTERM, SIGKILL after 4 s). */
export async function runFortio(
  options: GeneratorProcessOptions & { fortioPath: string; spec: LoadSpec; workDir: string },
): Promise<{ files: FortioRunFiles; cpu: CpuUsage; log: FortioLog }> {
  // fortio runs in workDir and opens the paths it is given there: they must not be relative.
  const workDir = resolve(options.workDir);
  const files: FortioRunFiles = {
    accessLogPath: join(workDir, 'access.jsonl'),
    jsonPath: join(workDir, 'fortio.json'),
    logPath: join(workDir, 'fortio.log'),
  };
  const [file, args] = commandOf([options.fortioPath, ...fortioArgs(options.spec, files)], options);
  // Both streams into one (interleaved as written), read as they come; nothing buffered whole.
  const subprocess = execa(file, args, {
    ...generatorExecaOptions(options),
    cwd: workDir,
    all: true,
    buffer: false,
  });
  const log = createFortioLog();
  const condensed = condenseOutput(subprocess.all, log, files.logPath).then(
    () => undefined,
    (err: unknown) => {
      subprocess.kill();
      return err;
    },
  );
  const { result, cpu } = await watchGenerator(subprocess, options);
  const logError = await condensed;
  if (logError !== undefined)
    throw new HarnessError(ErrorCode.LoadFailed, `could not write fortio's log ${files.logPath}`, {
      cause: logError,
    });
  const failure = generatorFailure('fortio', result, files.logPath);
  if (failure) throw failure;
  return { files, cpu, log };
}
