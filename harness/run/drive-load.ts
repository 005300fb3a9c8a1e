import { join } from 'node:path';
import type { ClusterBackend } from '../../clusters/backend.ts';
import { providerOf } from '../../clusters/registry.ts';
import { createProgress, formatDuration, startTicker } from '../../lib/index.ts';
import type { Clock, Progress } from '../../lib/index.ts';
import { createRecordsTail, fortioLineOk, k6LineOk, runLoad } from '../load/index.ts';
import type { LoadResult } from '../load/index.ts';
import type { RecordsTail } from '../load/index.ts';
import { groupOfOwner, startCpuMonitor } from '../observe/cpu-monitor.ts';
import type { MetricsScraper, Scrape } from '../observe/metrics-scraper.ts';
import type { CpuComponent, CpuReport } from '../observe/cpu-monitor.ts';
import { createRecordTally, isFortioOk } from '../tally/index.ts';
import { createFlagJoin } from '../explain/flag-join.ts';
import { readGatewayAccessLog } from '../explain/gateway-access-log.ts';
import type { RecordTally } from '../tally/index.ts';
import type { LoadGenerator } from '../provision/index.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import type { LoadShape } from './cluster-scenario.ts';

export const BUCKET_MS = 100;
const FLAG_HEADER = 'X-Response-Flags';

export interface DrivenLoad {
  load: LoadResult;
  tally: RecordTally;
  cpu: CpuReport;
  /** ztunnel's and the gateway's Prometheus metrics, scraped during the load (local backend). */
  metrics: Scrape[];
}

/** What the generator runs: the experiment's load shape against the targets (k6: every request flagged). */
function loadSpecOf(params: ExperimentParams, targets: string[], shape: LoadShape) {
  return {
    targets,
    ...(shape.newConnectionPerRequest ? { newConnectionPerRequest: true } : {}),
    ...(shape.exactCalls ? { exactCalls: shape.exactCalls } : {}),
    ...(shape.noCatchUp ? { noCatchUp: true } : {}),
    qps: params.qps,
    connections: params.connections,
    durationS: params.durationS,
    timeoutS: params.timeoutS,
    flagHeader: FLAG_HEADER,
    ...(params.k6Out.length > 0 ? { outputs: params.k6Out } : {}),
  };
}

/**
 * The "drive load" step: the generator (fortio or k6) against the targets for the run's duration,
 * with a progress line, and every component's CPU sampled while it runs. The harness stays off the
 * hot path: the generator writes its records to a file, the progress line reads only what was
 * appended since its last look, and the exact tally is made in one read after the generator exits
 * (reconciled with the generator's own count by runLoad).
 */
export async function driveLoad(options: {
  runDir: string;
  generator: LoadGenerator;
  clock: Clock;
  signal: AbortSignal;
  params: ExperimentParams;
  targets: string[];
  /** The scenario's shape of the calls (its LoadShape). */
  shape: LoadShape;
  backend: ClusterBackend;
  loadStartMs: number;
  write: (text: string) => void;
  /** What the fault is doing now, for the progress line ('' before it starts). */
  faultStatus: () => string;
  /** k6 runs: the bundled script (the plan step made it). */
  k6Script?: string;
  /** Metrics, started before the load (its baseline scrape done); stopped here when k6 exits. */
  scraper: MetricsScraper;
}): Promise<DrivenLoad> {
  const { clock, loadStartMs } = options;
  const progress = createProgress({ phase: 'load', clock, write: options.write });
  const { generator } = options;
  const workDir = join(options.runDir, generator.kind);
  const tail =
    generator.kind === 'k6'
      ? createRecordsTail(join(workDir, 'requests.csv'), k6LineOk(isFortioOk))
      : createRecordsTail(join(workDir, 'access.jsonl'), fortioLineOk);
  const stopTicker = startLoadProgress(options, progress, tail);
  // One process, or one fortio per target.
  const generatorPids: number[] = [];
  const cpu = startCpuMonitor({
    clock,
    components: () => cpuComponents(options.backend, generator.kind, generatorPids),
  });
  const { scraper } = options;
  let metrics: Promise<Scrape[]> | undefined;
  const stopScraping = (): Promise<Scrape[]> => (metrics ??= scraper.stop());
  try {
    const sink = createRecordTally({ clock, originMs: loadStartMs, bucketMs: BUCKET_MS, isOk: isFortioOk });
    const load = await runLoad({
      generator,
      workDir,
      ...(options.k6Script ? { bundlePath: options.k6Script } : {}),
      signal: options.signal,
      onSpawn: (pid) => {
        generatorPids.push(pid);
      },
      // --cpu-isolation: the generator in a cpu cgroup of its own, as on a node of its own.
      ...(options.backend.generatorCommand
        ? { wrapCommand: (argv: readonly string[]) => options.backend.generatorCommand?.(argv) ?? [...argv] }
        : {}),
      onGeneratorExited: () => {
        cpu.stop(); // the load is over: the tally's read below is not part of it
        void stopScraping();
      },
      // A backend with componentLogs keeps the gateway's log in the run folder as it runs (as
      // judge-run reads it). Envoy sends no x-response-flags header, so k6's records take their flags
      // from it as fortio's do.
      ...(providerOf(options.params.backend).capabilities.has('componentLogs')
        ? { prepareRecords: () => gatewayFlags(options.runDir, clock) }
        : {}),
      onRecord: (record) => {
        sink.add(record);
      },
      spec: loadSpecOf(options.params, options.targets, options.shape),
    });
    progress.finish(`${String(load.counts.total)} requests`);
    return { load, tally: sink.result(), cpu: cpu.stop(), metrics: await stopScraping() };
  } finally {
    cpu.stop();
    await stopScraping();
    stopTicker();
    await tail.close();
  }
}

/**
 * The gateway's access log flushes every second (Envoy's --file-flush-interval-msec 1000, as
 * pilot-agent sets it): past that, every request the generator sent is in it.
 */
const GATEWAY_LOG_FLUSH_MS = 1000;

/** The gateway's flags per failed call come from its own access log (no generator sees them in the response). */
async function gatewayFlags(runDir: string, clock: Clock) {
  await clock.sleep(GATEWAY_LOG_FLUSH_MS + 200);
  const log = await readGatewayAccessLog(join(runDir, 'pods'));
  return createFlagJoin(log.failures);
}

/** Each second: load left, what the fault is doing, live ok/failed counts from the records so far. */
function startLoadProgress(
  options: {
    clock: Clock;
    signal: AbortSignal;
    params: ExperimentParams;
    loadStartMs: number;
    faultStatus: () => string;
  },
  progress: Progress,
  tail: RecordsTail,
): () => void {
  const { clock, params, loadStartMs } = options;
  return startTicker({
    clock,
    intervalMs: 1000,
    signal: options.signal,
    tick: () => {
      const left = Math.max(0, params.durationS * 1000 - (clock.now() - loadStartMs));
      const fault = options.faultStatus();
      void tail.poll().then(
        (live) => {
          progress.update(
            `${formatDuration(left)} of load left${fault ? `, ${fault}` : ''}; ok ${String(live.ok)}, failed ${String(live.failed)}`,
          );
        },
        () => undefined, // progress only: a read error here shows up in the full read after the run
      );
    },
  });
}

/** The harness alone, the generator with its threads, and every pod's containers with their children. */
function cpuComponents(
  backend: ClusterBackend,
  generator: string,
  generatorPids: readonly number[],
): CpuComponent[] {
  const components: CpuComponent[] = [
    { name: 'harness', group: 'harness', roots: [process.pid], tree: false },
  ];
  if (generatorPids.length > 0)
    components.push({ name: generator, group: 'generator', roots: [...generatorPids], tree: true });
  for (const pod of backend.addresses().pods) {
    if (!pod.pids?.length) continue;
    components.push({
      name: `${pod.namespace}/${pod.name}`,
      group: groupOfOwner(pod.owner),
      roots: pod.pids,
      tree: true,
    });
  }
  return components;
}
