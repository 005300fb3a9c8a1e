import type { LifecycleEvent } from '../../clusters/events.ts';
import type { Burst, OutcomeClass, RecordTally } from '../tally/index.ts';
import { OUTCOME_CLASSES, summaryColumnOf } from '../tally/index.ts';
import type { CpuUsage } from '../load/index.ts';
import type { CsvRow } from '../results/write-csv.ts';
import type { ExperimentParams } from './experiment-params.ts';
import { armColumns } from './mitigation-arms.ts';

/** Bumped whenever a column is added, removed or changes meaning. */
export const SUMMARY_SCHEMA_VERSION = 2;

export interface RunFacts {
  runId: string;
  startedAtWallMs: number;
  gitSha: string;
  k6Version: string;
  droppedIterations: number;
  k6HttpReqs: number;
  generatorCpu?: CpuUsage;
  backend: Record<string, string | number>;
  rollout?: { startedAtMs: number; statusCompleteAtMs?: number; oldPodsGoneAtMs?: number };
  loadStartMs: number;
  verdict: 'pass' | 'fail' | 'aborted';
  reason: string;
}

/** The one summary row (summary.csv and runs.csv). Column order is fixed: first the documented ones. */
export function buildSummaryRow(
  params: ExperimentParams,
  tally: RecordTally | undefined,
  bursts: Burst[],
  facts: RunFacts,
): CsvRow {
  const totals = tally?.timeline.totals();
  const column = (name: string): number =>
    totals
      ? OUTCOME_CLASSES.filter((c) => summaryColumnOf(c) === name).reduce((n, c) => n + totals[c], 0)
      : 0;
  const cls = (c: OutcomeClass): number => totals?.[c] ?? 0;
  const rel = (ms: number | undefined): string =>
    ms === undefined ? '' : ((ms - facts.loadStartMs) / 1000).toFixed(3);
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    run_id: facts.runId,
    scenario: params.scenario,
    backend: params.backend,
    mesh: params.mesh,
    grace_s: params.graceS,
    qps: params.qps,
    connections: params.connections,
    duration_s: params.durationS,
    requests: tally?.total ?? 0,
    ok: column('ok'),
    http_503: column('http_503'),
    other_5xx: column('other_5xx'),
    refused: column('refused'),
    reset: column('reset'),
    eof: column('eof'),
    timeout: column('timeout'),
    other: column('other') + column('h2'),
    p50_ms: tally ? tally.latency.p50Ms.toFixed(2) : '',
    p99_ms: tally ? tally.latency.p99Ms.toFixed(2) : '',
    bursts: bursts.length,
    max_burst_ms: Math.max(0, ...bursts.map((b) => b.durationMs)),
    verdict: facts.verdict,
    reason: facts.reason,
    http_503_uf: cls('http_503_uf'),
    http_503_uc: cls('http_503_uc'),
    http_503_urx: cls('http_503_urx'),
    http_503_uh: cls('http_503_uh'),
    h2: cls('h2'),
    timeout_s: params.timeoutS,
    path: params.path,
    restart_at_s: params.restartAtS ?? 'none',
    replicas: params.replicas,
    max_failed: params.maxFailed,
    k6_http_reqs: facts.k6HttpReqs,
    dropped_iterations: facts.droppedIterations,
    k6_cpu_avg_pct: facts.generatorCpu ? facts.generatorCpu.processAvgPct.toFixed(1) : '',
    k6_cpu_max_pct: facts.generatorCpu ? facts.generatorCpu.processMaxPct.toFixed(1) : '',
    machine_cpu_busy_pct: facts.generatorCpu ? facts.generatorCpu.machineBusyPct.toFixed(1) : '',
    rollout_started_s: rel(facts.rollout?.startedAtMs),
    rollout_status_complete_s: rel(facts.rollout?.statusCompleteAtMs),
    rollout_old_pods_gone_s: rel(facts.rollout?.oldPodsGoneAtMs),
    started_at: new Date(facts.startedAtWallMs).toISOString(),
    git_sha: facts.gitSha,
    k6_version: facts.k6Version,
    ...armColumns(params.arms),
    ...facts.backend,
  };
}

export function eventRows(
  events: readonly LifecycleEvent[],
  wallOffsetMs: number,
  loadStartMs: number,
): CsvRow[] {
  return events.map((e) => ({
    t_s: ((e.atMs - loadStartMs) / 1000).toFixed(3),
    wall: new Date(e.atMs + wallOffsetMs).toISOString(),
    kind: e.kind,
    source: e.source,
    object: e.object,
    node: e.node ?? '',
    detail: e.detail ?? '',
  }));
}

export function timelineRows(tally: RecordTally, loadStartMs: number): CsvRow[] {
  return tally.timeline
    .buckets()
    .map((b) => ({ t_s: ((b.startMs - loadStartMs) / 1000).toFixed(3), ...b.counts }));
}

export function burstRows(bursts: readonly Burst[], loadStartMs: number): CsvRow[] {
  const rel = (ms: number): string => ((ms - loadStartMs) / 1000).toFixed(3);
  return bursts.map((b) => ({
    start_s: rel(b.startMs),
    duration_ms: b.durationMs,
    failures: b.failures,
    cause_kind: b.cause?.kind ?? '',
    cause_object: b.cause?.object ?? '',
    cause_t_s: b.cause ? rel(b.cause.atMs) : '',
  }));
}
