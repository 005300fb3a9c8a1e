import { join } from 'node:path';
import { execa } from 'execa';
import type { CpuUsage } from './cpu-sampler.ts';
import { commandOf, generatorExecaOptions, generatorFailure, watchGenerator } from './generator-process.ts';
import type { GeneratorProcessOptions } from './generator-process.ts';
import type { LoadSpec } from './load-spec.ts';
import { toK6Env } from './load-spec.ts';

export interface RunK6Options extends GeneratorProcessOptions {
  k6Path: string;
  /** The bundled script (bundleK6Script's output). */
  bundlePath: string;
  spec: LoadSpec;
  /** Where k6's files go: requests.csv, k6-summary.json, k6.log, k6-stdout.txt. */
  workDir: string;
}

export interface K6RunFiles {
  recordsPath: string;
  summaryPath: string;
  logPath: string;
  stdoutPath: string;
}

export interface K6Run {
  files: K6RunFiles;
  /** k6's own CPU and the machine's over the run: generator health. */
  cpu: CpuUsage;
}

/** Runs `k6 run` to completion. Cancelling `signal` stops k6 (SIGTERM, SIGKILL after 4 s). */
export async function runK6(options: RunK6Options): Promise<K6Run> {
  const files: K6RunFiles = {
    recordsPath: join(options.workDir, 'requests.csv'),
    summaryPath: join(options.workDir, 'k6-summary.json'),
    logPath: join(options.workDir, 'k6.log'),
    stdoutPath: join(options.workDir, 'k6-stdout.txt'),
  };
  const args = [
    'run',
    '--quiet',
    '--no-color',
    '--no-usage-report',
    '--no-thresholds',
    `--console-output=${files.recordsPath}`,
    // raw: the console file gets the script's lines as they are (the records), no logfmt wrapper.
    '--log-format=raw',
    `--log-output=file=${files.logPath}`,
    `--summary-export=${files.summaryPath}`,
    ...(options.spec.outputs ?? []).flatMap((out) => ['--out', out]),
    options.bundlePath,
  ];
  const [file, rest] = commandOf([options.k6Path, ...args], options);
  const subprocess = execa(file, rest, {
    ...generatorExecaOptions(options),
    env: k6Environment(process.env, toK6Env(options.spec)),
    extendEnv: false,
    cwd: options.workDir,
    stdout: { file: files.stdoutPath },
    stderr: 'pipe',
  });
  const { result, cpu } = await watchGenerator(subprocess, options);
  const tail = result.stderr.split('\n').slice(-15).join('\n');
  const failure = generatorFailure('k6', result, `${files.logPath}${tail ? `:\n${tail}` : ''}`);
  if (failure) throw failure;
  return { files, cpu };
}

/** K6_* variables in an environment: k6 reads them (K6_OUT, K6_VUS, ...), so they could change a run. */
export function strayK6Variables(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('K6_'))
    .sort();
}

/**
 * k6's environment: the caller's without any K6_* variable (a run is what its flags say; the stray
 * ones are recorded in provenance.json and named on stderr), plus the script's own settings.
 */
export function k6Environment(
  base: NodeJS.ProcessEnv,
  script: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base))
    if (value !== undefined && !name.startsWith('K6_')) env[name] = value;
  return { ...env, ...script, K6_NO_USAGE_REPORT: 'true' };
}
