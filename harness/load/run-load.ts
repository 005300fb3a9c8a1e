import { join } from 'node:path';
import { ErrorCode, HarnessError, isHarnessError, makeDirectory } from '../../lib/index.ts';
import type { LoadGenerator } from '../provision/index.ts';
import { bundleK6Script } from './bundle-k6-script.ts';
import type { CpuUsage } from './cpu-sampler.ts';
import { fortioOwnSummary, readFortioResult } from './fortio-output.ts';
import { readFortioRecords } from './fortio-records.ts';
import { readK6Records } from './k6-records.ts';
import type { NoResponseKind, RequestRecord } from './k6-records.ts';
import { readK6Summary } from './k6-summary.ts';
import type { LoadCounts } from './load-counts.ts';
import { addRecord, createLoadCounts } from './load-counts.ts';
import type { LoadSpec } from './load-spec.ts';
import { runFortio } from './run-fortio.ts';
import { runK6 } from './run-k6.ts';

/** What the generator itself counted: its requests (reconciled with the records) and its health. */
export interface GeneratorSummary {
  httpReqs: number;
  /** k6's constant-arrival-rate iterations it could not start; fortio catches up instead (0). */
  droppedIterations: number;
  /** k6's iterations started (k6 runs). */
  iterations?: number;
  /**
   * fortio: calls it retried once on a new connection after a reused one failed before any answer
   * (counted by the retry's outcome), by why the first attempt failed (fortio-log.ts).
   */
  retried?: Map<NoResponseKind, number>;
  /** fortio with several targets: each target's own count, in the targets' order. */
  perTarget?: number[];
}

export interface LoadFiles {
  /** One line per request: k6's requests.csv (our script's) or fortio's access.jsonl. */
  recordsPath: string;
  logPath: string;
  /** fortio's own JSON result (fortio runs). */
  fortioJsonPath?: string;
}

export interface LoadResult {
  spec: LoadSpec;
  generator: LoadGenerator;
  summary: GeneratorSummary;
  counts: LoadCounts;
  files: LoadFiles;
  cpu: CpuUsage;
  /** fortio's closing text as fortio printed it (fortio runs). */
  ownSummary?: string;
}

export interface RunLoadOptions {
  spec: LoadSpec;
  generator: LoadGenerator;
  workDir: string;
  signal?: AbortSignal;
  /** Sees every record during the one read of the records file (e.g. the tally). */
  onRecord?: (record: RequestRecord) => void;
  /** Told the generator's PID once it runs (per-component CPU). */
  onSpawn?: (pid: number) => void;
  /**
   * The generator's command line as it is started (the backend's generatorCommand: e.g. inside a
   * cpu cgroup of its own); default as it is.
   */
  wrapCommand?: (argv: readonly string[]) => string[];
  /** Called when the generator has exited, before its records are read: the end of the load. */
  onGeneratorExited?: () => void;
  /** k6: the script, bundled already (a run does it before its load starts); default: bundled here. */
  bundlePath?: string;
  /**
   * Called after the generator exited, before the records are read: what it returns sees each
   * record first (fills in what the generator could not record, e.g. the gateway's response flags).
   */
  prepareRecords?: () => Promise<((record: RequestRecord) => void) | undefined>;
}

/** The k6 script every k6 load runs (k6-scripts/). */
export const K6_SCRIPT = 'load.ts';

interface Ran {
  summary: GeneratorSummary;
  files: LoadFiles;
  cpu: CpuUsage;
  ownSummary?: string;
  read: (onRecord: (record: RequestRecord) => void) => Promise<number>;
}

async function runWithK6(options: RunLoadOptions): Promise<Ran> {
  const bundlePath =
    options.bundlePath ??
    (await bundleK6Script({ script: K6_SCRIPT, outFile: join(options.workDir, 'load.js') }));
  const { files, cpu } = await runK6({
    k6Path: options.generator.path,
    bundlePath,
    spec: options.spec,
    workDir: options.workDir,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    ...(options.wrapCommand ? { wrapCommand: options.wrapCommand } : {}),
  });
  options.onGeneratorExited?.();
  const summary = await readK6Summary(files.summaryPath);
  return {
    summary: {
      httpReqs: summary.httpReqs,
      droppedIterations: summary.droppedIterations,
      iterations: summary.iterations,
    },
    files: { recordsPath: files.recordsPath, logPath: files.logPath },
    cpu,
    read: (onRecord) => readK6Records(files.recordsPath, onRecord),
  };
}

/**
 * fortio takes one URL: with several targets, one fortio per target runs at once, each with an equal
 * share of the rate and the connections (at least one), in `<workDir>/<k>/`.
 */
function fortioShares(options: RunLoadOptions): { spec: LoadSpec; workDir: string }[] {
  const { spec, workDir } = options;
  const n = spec.targets.length;
  if (n === 1) return [{ spec, workDir }];
  if (spec.exactCalls)
    throw new HarnessError(
      ErrorCode.BadInput,
      `exact calls with ${String(n)} targets: give fortio one target`,
    );
  return spec.targets.map((url, k) => ({
    spec: {
      ...spec,
      targets: [url],
      qps: spec.qps / n,
      connections: Math.max(1, Math.round(spec.connections / n)),
    },
    workDir: join(workDir, String(k + 1)),
  }));
}

/** The machine's share is one figure; each process's CPU adds up. */
function sumCpu(cpus: CpuUsage[]): CpuUsage {
  return {
    processAvgPct: cpus.reduce((n, c) => n + c.processAvgPct, 0),
    processMaxPct: cpus.reduce((n, c) => n + c.processMaxPct, 0),
    machineBusyPct: Math.max(0, ...cpus.map((c) => c.machineBusyPct)),
    samples: Math.min(...cpus.map((c) => c.samples)),
  };
}

/**
 * Runs every share at once. When one fortio fails, the others are stopped (they would run out their
 * duration against a command that has already failed) and the first failure is the one thrown.
 */
async function runFortios(options: RunLoadOptions, shares: { spec: LoadSpec; workDir: string }[]) {
  const siblings = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, siblings.signal]) : siblings.signal;
  const settled = await Promise.allSettled(
    shares.map(async ({ spec, workDir }) => {
      await makeDirectory(workDir);
      return runFortio({
        fortioPath: options.generator.path,
        spec,
        workDir,
        signal,
        ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
        ...(options.wrapCommand ? { wrapCommand: options.wrapCommand } : {}),
      }).catch((err: unknown) => {
        if (!siblings.signal.aborted) siblings.abort(err);
        throw err;
      });
    }),
  );
  if (siblings.signal.aborted) {
    const cause: unknown = siblings.signal.reason;
    const k = settled.findIndex((s) => s.status === 'rejected' && s.reason === cause);
    if (shares.length === 1 || isHarnessError(cause, ErrorCode.Aborted)) throw cause;
    throw new HarnessError(
      isHarnessError(cause) ? cause.code : ErrorCode.LoadFailed,
      `fortio ${String(k + 1)} of ${String(shares.length)} (${shares[k]?.spec.targets[0] ?? ''}) failed, so the others were stopped: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
}

async function runWithFortio(options: RunLoadOptions): Promise<Ran> {
  const runs = await runFortios(options, fortioShares(options));
  options.onGeneratorExited?.();
  const results = await Promise.all(runs.map((r) => readFortioResult(r.files.jsonPath)));
  const retried = new Map<NoResponseKind, number>();
  for (const [kind, n] of runs.flatMap((r) => [...r.log.retried]))
    retried.set(kind, (retried.get(kind) ?? 0) + n);
  const [first] = runs;
  const one = runs.length === 1 && first;
  return {
    summary: {
      httpReqs: results.reduce((n, r) => n + r.calls, 0),
      droppedIterations: 0,
      retried,
      perTarget: results.map((r) => r.calls),
    },
    files: {
      recordsPath: first?.files.accessLogPath ?? '',
      logPath: first?.files.logPath ?? '',
      ...(one ? { fortioJsonPath: one.files.jsonPath } : {}),
    },
    cpu: sumCpu(runs.map((r) => r.cpu)),
    ownSummary: one
      ? fortioOwnSummary(one.log.text())
      : runs
          .map(
            (r, k) =>
              `fortio ${String(k + 1)} of ${String(runs.length)}: ${options.spec.targets[k] ?? ''}\n${fortioOwnSummary(r.log.text())}`,
          )
          .join('\n'),
    read: async (onRecord) => {
      let count = 0;
      for (const run of runs)
        count += await readFortioRecords(run.files.accessLogPath, run.log.errors, onRecord);
      return count;
    },
  };
}

/**
 * Runs the load with the chosen generator and reads every request back. The record count must equal
 * the generator's own count (k6's `http_reqs`, fortio's histogram count): a harness that loses
 * requests cannot be trusted with 503 counts.
 */
export async function runLoad(options: RunLoadOptions): Promise<LoadResult> {
  await makeDirectory(options.workDir);
  const ran = options.generator.kind === 'k6' ? await runWithK6(options) : await runWithFortio(options);
  const counts = createLoadCounts();
  const result: LoadResult = {
    spec: options.spec,
    generator: options.generator,
    summary: ran.summary,
    counts,
    files: ran.files,
    cpu: ran.cpu,
    ...(ran.ownSummary === undefined ? {} : { ownSummary: ran.ownSummary }),
  };
  if (options.spec.records === false) return result;
  const enrich = await options.prepareRecords?.();
  const recorded = await ran.read((record) => {
    enrich?.(record);
    addRecord(counts, record);
    options.onRecord?.(record);
  });
  if (recorded !== ran.summary.httpReqs) {
    throw new HarnessError(
      ErrorCode.LoadFailed,
      `${options.generator.kind} counted ${String(ran.summary.httpReqs)} requests but ${String(recorded)} were recorded (${ran.files.recordsPath})`,
    );
  }
  return result;
}
