import { join } from 'node:path';
import type { ClusterBackend } from '../../clusters/backend.ts';
import { createProgress, formatDuration, startTicker } from '../../lib/index.ts';
import type { Clock, Progress } from '../../lib/index.ts';
import { createRecordsTail, runLoad } from '../load/index.ts';
import type { LoadResult } from '../load/index.ts';
import type { RecordsTail } from '../load/index.ts';
import { groupOfOwner, startCpuMonitor } from '../observe/cpu-monitor.ts';
import type { MetricsScraper, Scrape } from '../observe/metrics-scraper.ts';
import type { CpuComponent, CpuReport } from '../observe/cpu-monitor.ts';
import { createRecordTally, isFortioOk } from '../tally/index.ts';
import type { RecordTally } from '../tally/index.ts';
import type { K6Binary } from '../tools/index.ts';
import type { ExperimentParams } from './experiment-params.ts';

export const BUCKET_MS = 100;
const FLAG_HEADER = 'X-Response-Flags';

export interface DrivenLoad {
  load: LoadResult;
  tally: RecordTally;
  cpu: CpuReport;
  /** ztunnel's and the gateway's Prometheus metrics, scraped during the load (local backend). */
  metrics: Scrape[];
}

/** What k6 runs: the experiment's load shape against the targets, every request flagged. */
function loadSpecOf(params: ExperimentParams, targets: string[], newConnectionPerRequest: boolean) {
  return {
    targets,
    ...(newConnectionPerRequest ? { newConnectionPerRequest: true } : {}),
    qps: params.qps,
    connections: params.connections,
    durationS: params.durationS,
    timeoutS: params.timeoutS,
    flagHeader: FLAG_HEADER,
    ...(params.k6Out.length > 0 ? { outputs: params.k6Out } : {}),
  };
}

/**
 * The "drive load" step: k6 against the targets for the run's duration, with a progress line, and
 * every component's CPU sampled while it runs. The harness stays off the hot path: k6 writes its
 * records to a file, the progress line reads only what was appended since its last look, and the
 * exact tally is made in one read after k6 exits (reconciled with k6's own count by runLoad).
 */
export async function driveLoad(options: {
  runDir: string;
  k6: K6Binary;
  clock: Clock;
  signal: AbortSignal;
  params: ExperimentParams;
  targets: string[];
  newConnectionPerRequest: boolean;
  backend: ClusterBackend;
  loadStartMs: number;
  write: (text: string) => void;
  /** What the fault is doing now, for the progress line ('' before it starts). */
  faultStatus: () => string;
  /** The bundled k6 script (the plan step made it). */
  k6Script: string;
  /** Metrics, started before the load (its baseline scrape done); stopped here when k6 exits. */
  scraper: MetricsScraper;
}): Promise<DrivenLoad> {
  const { clock, loadStartMs } = options;
  const progress = createProgress({ phase: 'load', clock, write: options.write });
  const tail = createRecordsTail(join(options.runDir, 'k6', 'requests.csv'), isFortioOk);
  const stopTicker = startLoadProgress(options, progress, tail);
  let k6Pid: number | undefined;
  const cpu = startCpuMonitor({ clock, components: () => cpuComponents(options.backend, k6Pid) });
  const { scraper } = options;
  let metrics: Promise<Scrape[]> | undefined;
  const stopScraping = (): Promise<Scrape[]> => (metrics ??= scraper.stop());
  try {
    const sink = createRecordTally({ clock, originMs: loadStartMs, bucketMs: BUCKET_MS, isOk: isFortioOk });
    const load = await runLoad({
      k6: options.k6,
      workDir: join(options.runDir, 'k6'),
      bundlePath: options.k6Script,
      signal: options.signal,
      onSpawn: (pid) => {
        k6Pid = pid;
      },
      onK6Exited: () => {
        cpu.stop(); // the load is over: the tally's read below is not part of it
        void stopScraping();
      },
      onRecord: (record) => {
        sink.add(record);
      },
      spec: loadSpecOf(options.params, options.targets, options.newConnectionPerRequest),
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

/** The harness alone, k6 with its threads, and every pod's containers with their children. */
function cpuComponents(backend: ClusterBackend, k6Pid: number | undefined): CpuComponent[] {
  const components: CpuComponent[] = [
    { name: 'harness', group: 'harness', roots: [process.pid], tree: false },
  ];
  if (k6Pid !== undefined) components.push({ name: 'k6', group: 'k6', roots: [k6Pid], tree: true });
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
