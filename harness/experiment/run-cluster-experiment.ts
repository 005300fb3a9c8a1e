import { POD_GONE_KINDS } from '../../clusters/events.ts';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { collectProvenance, writeProvenance } from '../config/provenance.ts';
import { writeRunConfig } from '../config/run-config.ts';
import { execa } from 'execa';
import type { ClusterAddresses, RolloutResult } from '../../clusters/backend.ts';
import { createBackend } from './create-backend.ts';
import type { BackendSettings } from './create-backend.ts';
import { checkKindTools } from './kind-experiment.ts';
import { createProgress, ErrorCode, formatDuration, HarnessError } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { LoadResult } from '../load/index.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { appendCsvRow, checkCsvHeader, writeCsv } from '../results/write-csv.ts';
import { createRunId } from '../scenarios/load-smoke.ts';
import { findBursts } from '../tally/index.ts';
import { explainRun } from '../explain/explain-run.ts';
import { measureDrainOptions } from '../explain/drain-option-metrics.ts';
import type { BurstExplanation } from '../explain/explain-bursts.ts';
import { ISTIO_FILE_FLUSH_INTERVAL_MS } from '../../mesh/gateway/access-log-writer.ts';
import type { Burst, RecordTally } from '../tally/index.ts';
import { ensureK6 } from '../tools/index.ts';
import type { ClusterScenario, Companion, CompanionResult } from './cluster-scenario.ts';
import type { ExperimentParams } from './experiment-params.ts';
import {
  burstRows,
  buildSummaryRow,
  cpuRows,
  eventRows,
  latencyRows,
  timelineRows,
  zoomRows,
} from './summary-row.ts';
import { BUCKET_MS, driveLoad } from './drive-load.ts';
import type { CpuReport } from '../observe/cpu-monitor.ts';
import { writeRunReport } from '../report/write-run-report.ts';
import type { RunFacts } from './summary-row.ts';

export { BUCKET_MS } from './drive-load.ts';
/** Causes of loss: a pod going away, or an old ztunnel's drain deadline. */
const TERMINATION_KINDS = new Set<string>([...POD_GONE_KINDS, 'drain-deadline']);
const EMPTY_FACTS: RunFacts = {
  runId: '',
  startedAtWallMs: 0,
  gitSha: '',
  k6Version: '',
  droppedIterations: 0,
  k6HttpReqs: 0,
  backend: {},
  loadStartMs: 0,
  verdict: 'aborted',
  reason: '',
};

export interface ClusterRun {
  runDir: string;
  loadStartMs: number;
  row: Record<string, string | number>;
  tally?: RecordTally;
  bursts: Burst[];
  /** Each burst's mechanism and figures (local backend), in the bursts' order. */
  explanations: BurstExplanation[];
  /** The companion's lines (e.g. E3's long-lived connections), for stdout. */
  notes: string[];
  load?: LoadResult;
}

/** k6's targets: the scenario's, else the gateway at --path. */
function loadTargetsOf(
  scenario: ClusterScenario,
  addresses: ClusterAddresses,
  params: ExperimentParams,
): string[] {
  if (scenario.loadTargets) return scenario.loadTargets(addresses, params);
  if (!addresses.ingress)
    throw new HarnessError(ErrorCode.ComponentFailed, 'the gateway is Ready but has no address');
  return [`http://${addresses.ingress}${params.path}`];
}

async function gitSha(): Promise<string> {
  const result = await execa('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, reject: false });
  return result.exitCode === 0 ? result.stdout.trim() : 'unknown';
}

/**
 * One run: cluster up, deploy, load through the gateway, restart at --restart-at, tally against the
 * lifecycle events, write summary.csv / timeline.csv / events.csv and append to runs.csv. Any
 * failure or abort still writes the run folder, with verdict `aborted` and the reason.
 */
export async function runClusterExperiment(options: {
  scenario: ClusterScenario;
  params: ExperimentParams;
  resultsDir: string;
  clock: Clock;
  signal: AbortSignal;
  write: (text: string) => void;
  backendSettings?: BackendSettings;
}): Promise<ClusterRun> {
  const { clock, params, scenario, write } = options;
  // Docker and kind must answer before anything is written (exit 2 naming what to install).
  if (params.backend === 'kind') await checkKindTools();
  const settings = options.backendSettings ?? {};
  // Before anything starts: runs.csv must take this run's row (same columns). Creating a backend
  // starts nothing; this one only describes itself.
  const described = createBackend(params, { clock, settings }).describe();
  const columns = Object.keys(buildSummaryRow(params, undefined, [], { ...EMPTY_FACTS, backend: described }));
  await checkCsvHeader(join(options.resultsDir, 'runs.csv'), columns);
  const k6 = await ensureK6({ signal: options.signal, clock, write });
  const startedAtWallMs = clock.now() + clock.wallOffsetMs;
  const runId = createRunId(params.scenario, startedAtWallMs);
  const runDir = join(options.resultsDir, runId);
  await mkdir(join(runDir, 'pods'), { recursive: true });
  // What to re-run (`--from <run dir>`) and what it ran on, before anything can fail.
  await writeRunConfig(runDir, params);
  await writeProvenance(runDir, await collectProvenance({ k6Version: k6.version }));
  const backend = createBackend(params, { clock, settings, logDir: join(runDir, 'pods') });
  const failed = new AbortController();
  backend.onFailure((err) => {
    failed.abort(err);
  });
  const signal = AbortSignal.any([options.signal, failed.signal]);
  const progress = createProgress({ phase: 'cluster', clock, write });
  let loadStartMs = clock.now();
  let load: LoadResult | undefined;
  let tally: RecordTally | undefined;
  let cpu: CpuReport | undefined;
  let rollout: RolloutResult | undefined;
  let rolloutStartedMs: number | undefined;
  let reason = '';
  let companion: Companion | undefined;
  let companionResult: CompanionResult | undefined;
  try {
    progress.update(
      params.backend === 'kind'
        ? 'building images, creating the kind cluster, loading images, starting istiod (minutes)'
        : 'starting control plane, nodes, ztunnels, gateway, httpbin',
    );
    await backend.up(signal);
    progress.update('deploying ztunnel, httpbin and the gateway; waiting until requests get through');
    await backend.apply(scenario.manifests(params));
    // kind pulls nothing (images are loaded) but schedules real pods and probes them: give it longer.
    await backend.waitForReady({ timeoutMs: params.backend === 'kind' ? 300_000 : 60_000, signal });
    const targets = loadTargetsOf(scenario, backend.addresses(), params);
    progress.finish(
      `ready: load to ${targets[0] ?? '?'}${targets.length > 1 ? ` and ${String(targets.length - 1)} more` : ''}`,
    );
    loadStartMs = clock.now();
    const restartAtS = params.restartAtS;
    const restartDone =
      restartAtS === undefined
        ? Promise.resolve(undefined)
        : (async () => {
            await clock.sleep(restartAtS * 1000, signal);
            rolloutStartedMs = clock.now();
            const fault = scenario.fault;
            if (fault.kind === 'scale') {
              await backend.scale(fault.target, fault.replicas);
              return undefined;
            }
            await backend.rolloutRestart(fault.target);
            return backend.waitForRollout(fault.target, {
              timeoutMs: params.durationS * 1000 + params.graceS * 2000 + 60_000,
              untilOldPodsGone: true,
              signal,
            });
          })();
    restartDone.catch(() => undefined); // awaited below; this only keeps an early rejection observed
    companion = scenario.companion?.({ backend, clock, params, signal });
    try {
      const driven = await driveLoad({
        runDir,
        k6,
        clock,
        signal,
        params,
        targets,
        newConnectionPerRequest: scenario.newConnectionPerRequest ?? false,
        backend,
        loadStartMs,
        write,
        faultStatus: () =>
          rolloutStartedMs === undefined
            ? ''
            : `${scenario.fault.target.kind} ${scenario.fault.kind === 'scale' ? 'scaled' : 'restarted'} ${formatDuration(clock.now() - rolloutStartedMs)} ago`,
      });
      ({ load, tally, cpu } = driven);
    } finally {
      const c = companion;
      companion = undefined;
      if (c) companionResult = await c.stop();
    }
    if (params.restartAtS !== undefined) {
      write(
        `waiting for the ${scenario.fault.kind} to finish${scenario.fault.kind === 'scale' ? '' : ' (old pods gone)'}\n`,
      );
      rollout = await restartDone;
    }
  } catch (err) {
    reason = signal.aborted
      ? String((signal.reason as Error | undefined)?.message ?? signal.reason)
      : err instanceof Error
        ? err.message
        : String(err);
  } finally {
    if (companion) companionResult = await companion.stop().catch(() => undefined);
    // The gateway flushes its access log every second (as pilot-agent runs Envoy): let the last
    // flush happen before the cluster goes, so the log holds every request of the run.
    if (load && !signal.aborted) await clock.sleep(ISTIO_FILE_FLUSH_INTERVAL_MS + 200).catch(() => undefined);
    await backend.close();
  }
  const events = backend.events();
  // Causes of loss: something being terminated. Creations and the control plane's pushes (what ends
  // a burst) are not.
  const causes = events.filter((e) => TERMINATION_KINDS.has(e.kind));
  // The local backend keeps every container's log in the run folder: the gateway's failures are
  // grouped by cause and explained there. When its access log does not hold every failure k6 saw
  // (load that bypasses the gateway, E3), bursts are contiguous failed buckets instead.
  const explained =
    params.backend === 'local' && tally
      ? await explainRun({ logDir: join(runDir, 'pods'), events, wallOffsetMs: clock.wallOffsetMs })
      : undefined;
  const drainOptions =
    params.backend === 'local' && params.meshClientRps > 0
      ? await measureDrainOptions({
          logDir: join(runDir, 'pods'),
          events,
          wallOffsetMs: clock.wallOffsetMs,
          endMs: loadStartMs + params.durationS * 1000,
          ...(cpu ? { cpuSamples: cpu.samples } : {}),
        })
      : undefined;
  const k6Failed = tally ? tally.total - tally.timeline.totals().ok : 0;
  const byCause = explained !== undefined && explained.gateway.failures === k6Failed;
  const bursts: Burst[] = byCause
    ? explained.bursts
    : tally
      ? findBursts(tally.timeline.buckets(), BUCKET_MS, causes)
      : [];
  const failedCount = (tally ? tally.total - tally.timeline.totals().ok : 0) + (companionResult?.failed ?? 0);
  // Aborted after the load ended (a crash while the cluster closed): still not a result to trust.
  if (!reason && signal.aborted)
    reason = String((signal.reason as Error | undefined)?.message ?? signal.reason);
  const verdict: RunFacts['verdict'] = reason ? 'aborted' : failedCount > params.maxFailed ? 'fail' : 'pass';
  if (!reason)
    reason =
      verdict === 'pass'
        ? `${String(failedCount)} failed <= ${String(params.maxFailed)}`
        : `${String(failedCount)} failed > ${String(params.maxFailed)}`;
  const facts: RunFacts = {
    runId,
    startedAtWallMs,
    gitSha: await gitSha(),
    k6Version: k6.version,
    droppedIterations: load?.summary.droppedIterations ?? 0,
    k6HttpReqs: load?.summary.httpReqs ?? 0,
    ...(load ? { generatorCpu: load.cpu } : {}),
    ...(cpu ? { componentCpu: cpu.groups } : {}),
    ...(drainOptions ? { drainOptions } : {}),
    ...(explained
      ? {
          gatewayLog: explained.gateway,
          deadlines: {
            atMs: events.filter((e) => e.kind === 'drain-deadline').map((e) => e.atMs),
            explanations: byCause ? explained.explanations : [],
          },
        }
      : {}),
    backend: backend.describe(),
    ...(rolloutStartedMs === undefined
      ? {}
      : {
          rollout: {
            startedAtMs: rolloutStartedMs,
            ...(rollout
              ? {
                  statusCompleteAtMs: rollout.statusCompleteAtMs,
                  ...(rollout.oldPodsGoneAtMs === undefined
                    ? {}
                    : { oldPodsGoneAtMs: rollout.oldPodsGoneAtMs }),
                }
              : {}),
          },
        }),
    loadStartMs,
    verdict,
    reason,
  };
  const common = buildSummaryRow(params, tally, bursts, facts);
  // The scenario's own columns (E3's long-lived connections) go into summary.csv only: runs.csv
  // keeps one schema for every scenario.
  const row = { ...common, ...companionResult?.columns };
  await writeCsv(join(runDir, 'summary.csv'), [row]);
  const eventCsv = eventRows(events, clock.wallOffsetMs, loadStartMs);
  const timelineCsv = tally ? timelineRows(tally.timeline, loadStartMs) : [];
  const byEndCsv = tally ? timelineRows(tally.byEnd, loadStartMs) : [];
  const latencyCsv = tally ? latencyRows(tally, loadStartMs) : [];
  const zoomCsv = tally ? zoomRows(tally, bursts, loadStartMs) : [];
  const explanations = byCause ? explained.explanations : [];
  const burstCsv = burstRows(bursts, loadStartMs, explanations);
  if (eventCsv.length > 0) await writeCsv(join(runDir, 'events.csv'), eventCsv);
  if (timelineCsv.length > 0) await writeCsv(join(runDir, 'timeline.csv'), timelineCsv);
  if (burstCsv.length > 0) await writeCsv(join(runDir, 'bursts.csv'), burstCsv);
  if (byEndCsv.length > 0) await writeCsv(join(runDir, 'timeline-by-end.csv'), byEndCsv);
  if (latencyCsv.length > 0) await writeCsv(join(runDir, 'latency.csv'), latencyCsv);
  if (zoomCsv.length > 0) await writeCsv(join(runDir, 'zoom.csv'), zoomCsv);
  const cpuCsv = cpu ? cpuRows(cpu, loadStartMs) : [];
  if (cpuCsv.length > 0) await writeCsv(join(runDir, 'cpu.csv'), cpuCsv);
  try {
    await writeRunReport({
      runDir,
      row,
      timeline: timelineCsv,
      events: eventCsv,
      bursts: burstCsv,
      cpu: cpuCsv,
      byEnd: byEndCsv,
      latency: latencyCsv,
      zoom: zoomCsv,
      bucketMs: BUCKET_MS,
    });
  } catch (err) {
    // The CSVs are the results; a report that cannot be drawn must not lose them.
    write(`report.html not written: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  await appendCsvRow(join(options.resultsDir, 'runs.csv'), common);
  return {
    runDir,
    loadStartMs,
    row,
    bursts,
    explanations,
    notes: companionResult?.lines ?? [],
    ...(tally ? { tally } : {}),
    ...(load ? { load } : {}),
  };
}
