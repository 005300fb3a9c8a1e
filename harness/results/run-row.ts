// The summary row (summary.csv, runs.csv): one run's parameters, figures and facts as cells; its
// schema version. The run folder's other tables are run-tables.ts.
import { backendColumns } from '../../clusters/backend-columns.ts';
import type { BackendDescription } from '../../clusters/backend-columns.ts';
import type { Burst, RecordTally } from '../run/tally/index.ts';
import { runFigures } from '../run/run-figures.ts';
import type { RunFigures } from '../run/run-figures.ts';
import type { CpuUsage } from '../run/load/index.ts';
import type { CpuGroupFigures } from '../run/observe/cpu-monitor.ts';
import type { CsvRow } from './write-csv.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import { newestOptionColumn, parameterColumns } from '../options/params.ts';
import type { DeadlineAccount } from '../run/explain/deadline-accounting.ts';
import { projectCount } from '../run/explain/deadline-accounting.ts';
import { poissonInterval } from '../run/explain/poisson.ts';
import type { BurstExplanation } from '../run/explain/explain-bursts.ts';
import type { DrainOptionMetrics } from '../run/explain/drain-option-metrics.ts';

/**
 * Bumped whenever a column is added, removed or changes meaning: by hand here for the row's own
 * columns, by the option table for an option's (its column's `added.since`, e.g. a new arm).
 */
// 12: deadline_wire_fin and deadline_wire_rst (measures: older rows had no capture, left empty) and
// istio_shared_ca (bookkeeping: older istio-shared rows ran FAKE_CA).
export const SUMMARY_SCHEMA_VERSION = Math.max(12, newestOptionColumn(experimentOptions()));

/**
 * Components whose CPU (mean and max over the load, % of one core, summed over their pods) is a
 * column of every row; the load generator's is in the generator columns. Per pod and per second: cpu.csv.
 */
export const CPU_COLUMN_GROUPS = ['harness', 'gateway', 'ztunnel', 'httpbin'] as const;

export interface RunFacts {
  runId: string;
  startedAtWallMs: number;
  gitSha: string;
  /** The generator that ran (fortio or k6) and its version. */
  generator: { kind: string; version: string };
  /** The gateway's and the sidecar's Envoy (`envoy --version`; kind: the image's tag). */
  envoyVersion: string;
  droppedIterations: number;
  /** fortio's retried calls by why the first attempt failed (`timeout:19`), '' when none. */
  generatorRetried?: string;
  /** Requests the generator itself counted (k6's http_reqs, fortio's calls). */
  generatorRequests: number;
  generatorCpu?: CpuUsage;
  /** The gateway's access log over the run (local backend): requests, and failures it answered or cut. */
  gatewayLog?: { requests: number; failures: number; warmupFailures?: number };
  /** E5's figures, when a meshed client ran (drain-option-metrics.ts). */
  drainOptions?: DrainOptionMetrics;
  /** Every drain deadline (run clock) and the bursts' explanations (local backend). */
  deadlines?: {
    atMs: readonly number[];
    explanations: readonly BurstExplanation[];
    /** Every deadline inside the load, accounted for (deadline-accounting.ts). */
    accounts?: readonly DeadlineAccount[];
  };
  /** Per component group (harness, gateway, ...), from the CPU monitor; absent on an early abort. */
  componentCpu?: ReadonlyMap<string, CpuGroupFigures>;
  backend: BackendDescription;
  rollout?: { startedAtMs: number; statusCompleteAtMs?: number; oldPodsGoneAtMs?: number };
  loadStartMs: number;
  verdict: 'pass' | 'fail' | 'aborted';
  reason: string;
}

/** Facts of a run that has not happened: only to learn the summary row's columns beforehand. */
export const EMPTY_FACTS: RunFacts = {
  runId: '',
  startedAtWallMs: 0,
  gitSha: '',
  generator: { kind: '', version: '' },
  envoyVersion: '',
  droppedIterations: 0,
  generatorRequests: 0,
  backend: {},
  loadStartMs: 0,
  verdict: 'aborted',
  reason: '',
};

/** Requests by summary column (outcome classes folded as summaryColumnOf says), then p50 and p99. */
function countColumns(f: RunFigures, measured: boolean): CsvRow {
  return {
    requests: f.requests,
    ok: f.ok,
    http_503: f.http_503,
    other_5xx: f.other_5xx,
    refused: f.refused,
    reset: f.reset,
    eof: f.eof,
    timeout: f.timeout,
    other: f.other,
    p50_ms: measured ? f.p50_ms.toFixed(2) : '',
    p99_ms: measured ? f.p99_ms.toFixed(2) : '',
  };
}

/** What the generator and the gateway counted, and what the generator cost. */
function generatorColumns(facts: RunFacts): CsvRow {
  return {
    generator_requests: facts.generatorRequests,
    gateway_log_requests: facts.gatewayLog?.requests ?? '',
    gateway_log_failures: facts.gatewayLog?.failures ?? '',
    gateway_log_warmup_failures: facts.gatewayLog?.warmupFailures ?? '',
    dropped_iterations: facts.droppedIterations,
    generator_retried: facts.generatorRetried ?? '',
    generator_cpu_avg_pct: facts.generatorCpu ? facts.generatorCpu.processAvgPct.toFixed(1) : '',
    generator_cpu_max_pct: facts.generatorCpu ? facts.generatorCpu.processMaxPct.toFixed(1) : '',
    machine_cpu_busy_pct: facts.generatorCpu ? facts.generatorCpu.machineBusyPct.toFixed(1) : '',
  };
}

/**
 * The one summary row (summary.csv and runs.csv): the run's figures (run-figures.ts), parameters and
 * facts rendered as cells. Column order is fixed: first the documented ones.
 */
export function buildSummaryRow(
  params: ExperimentParams,
  tally: RecordTally | undefined,
  bursts: Burst[],
  facts: RunFacts,
): CsvRow {
  const f = runFigures({ tally, bursts, droppedIterations: facts.droppedIterations });
  const rel = (ms: number | undefined): string =>
    ms === undefined ? '' : ((ms - facts.loadStartMs) / 1000).toFixed(3);
  const table = experimentOptions();
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    run_id: facts.runId,
    ...parameterColumns(table, params, 'lead'),
    generator: facts.generator.kind,
    ...countColumns(f, tally !== undefined),
    bursts: f.bursts,
    max_burst_ms: f.max_burst_ms,
    verdict: facts.verdict,
    reason: facts.reason,
    http_503_uf: f.http_503_uf,
    http_503_uc: f.http_503_uc,
    http_503_urx: f.http_503_urx,
    http_503_uh: f.http_503_uh,
    h2: f.h2,
    ...parameterColumns(table, params, 'shape'),
    ...generatorColumns(facts),
    ...cpuColumns(facts.componentCpu),
    rollout_started_s: rel(facts.rollout?.startedAtMs),
    rollout_status_complete_s: rel(facts.rollout?.statusCompleteAtMs),
    rollout_old_pods_gone_s: rel(facts.rollout?.oldPodsGoneAtMs),
    ...deadlineColumns(facts, rel, {
      projectRatePerS: params.projectRatePerS,
      ...(tally && params.durationS > 0 ? { runRatePerS: tally.total / params.durationS } : {}),
    }),
    ...drainOptionColumns(facts.drainOptions),
    started_at: new Date(facts.startedAtWallMs).toISOString(),
    git_sha: facts.gitSha,
    generator_version: facts.generator.version,
    envoy_version: facts.envoyVersion,
    ...parameterColumns(table, params, 'arm'),
    ...backendColumns(facts.backend),
  };
}

function cpuColumns(groups: ReadonlyMap<string, CpuGroupFigures> | undefined): CsvRow {
  const row: CsvRow = {};
  for (const group of CPU_COLUMN_GROUPS) {
    const figures = groups?.get(group);
    row[`${group}_cpu_avg_pct`] = figures ? figures.avgPct.toFixed(1) : '';
    row[`${group}_cpu_max_pct`] = figures ? figures.maxPct.toFixed(1) : '';
    // Run-queue wait (schedstat): how long its threads waited for a CPU, % of the time, summed.
    row[`${group}_cpu_wait_avg_pct`] = figures ? figures.waitAvgPct.toFixed(1) : '';
  }
  return row;
}

/**
 * Where the old ztunnels' drain deadlines fell (seconds from load start, space-separated; those past
 * the end of the load cost nothing), and what the deadline bursts were made of: failures sent
 * before each drop (in flight toward or inside the old ztunnel), after it (onto a connection the
 * gateway had not yet seen close), and the gateway's longest reaction time.
 */
function deadlineColumns(
  facts: RunFacts,
  rel: (ms: number | undefined) => string,
  rates: { projectRatePerS: number; runRatePerS?: number },
): CsvRow {
  const d = facts.deadlines;
  const drops = d?.explanations.filter((e) => e.mechanism === 'drain-deadline') ?? [];
  const sum = (f: (e: BurstExplanation) => number | undefined): number | string =>
    d ? drops.reduce((n, e) => n + (f(e) ?? 0), 0) : '';
  return {
    drain_deadlines_s: d ? d.atMs.map((ms) => rel(ms)).join(' ') : '',
    deadline_failed_before_drop: sum((e) => e.failedBeforeDrop),
    deadline_failed_after_drop: sum((e) => e.failedAfterDrop),
    deadline_dropped_in_flight: sum((e) => e.droppedInFlight),
    deadline_gateway_reaction_ms: d ? Math.max(0, ...drops.map((e) => e.gatewayReactionMs ?? 0)) : '',
    bursts_after_sigterm: d ? d.explanations.filter((e) => e.startsAfterSigterm === true).length : '',
    ...accountColumns(d?.accounts, rates.runRatePerS, rates.projectRatePerS),
  };
}

/**
 * E1's count against its mechanism over the run's deadlines (deadline-accounting.ts): the summed
 * predictions (reset: rate x (T_past + L); FIN: in_flight + rate x L) and the interval from the
 * FIN sum's 2.5 % to the reset sum's 97.5 % Poisson quantile (a sum of Poisson counts is Poisson),
 * the count accounted for, whether it lies inside, and the terms (rate-weighted means).
 */
function accountColumns(
  accounts: readonly DeadlineAccount[] | undefined,
  runRatePerS: number | undefined,
  projectRatePerS: number,
): CsvRow {
  const names = [
    'deadline_accounted',
    'deadline_predicted',
    'deadline_predicted_fin',
    'deadline_predicted_low',
    'deadline_predicted_high',
    'deadline_inside',
    'deadline_rate_per_s',
    'deadline_t_past_ms',
    'deadline_l_ms',
    'deadline_cpu_wait_pct',
    'deadline_projected_rate_per_s',
    'deadline_projected',
    'deadline_projected_at_1ms',
    'deadline_reset_share',
    'deadline_wire_fin',
    'deadline_wire_rst',
  ];
  if (!accounts?.length) return Object.fromEntries(names.map((n) => [n, '']));
  const total = (f: (a: DeadlineAccount) => number): number => accounts.reduce((n, a) => n + f(a), 0);
  const predicted = total((a) => a.predicted);
  const predictedFin = total((a) => a.predictedFin);
  const accounted = total((a) => a.count);
  const low = poissonInterval(predictedFin)[0];
  const high = poissonInterval(predicted)[1];
  const rate = total((a) => a.ratePerS);
  const weighted = (f: (a: DeadlineAccount) => number): number =>
    rate > 0 ? total((a) => f(a) * a.ratePerS) / rate : 0;
  const waits = accounts.flatMap((a) => (a.cpuWaitShare === undefined ? [] : [a.cpuWaitShare]));
  return {
    deadline_accounted: accounted,
    deadline_predicted: predicted.toFixed(1),
    deadline_predicted_fin: predictedFin.toFixed(1),
    deadline_predicted_low: low,
    deadline_predicted_high: high,
    deadline_inside: accounted >= low && accounted <= high ? 1 : 0,
    deadline_rate_per_s: (rate / accounts.length).toFixed(0),
    deadline_t_past_ms: weighted((a) => a.pastGatewayMs).toFixed(2),
    deadline_l_ms: weighted((a) => a.reactionMs).toFixed(2),
    deadline_cpu_wait_pct: waits.length
      ? ((waits.reduce((a, b) => a + b, 0) / waits.length) * 100).toFixed(0)
      : '',
    deadline_projected_rate_per_s: projectRatePerS,
    deadline_projected: runRatePerS ? projectCount(accounts, runRatePerS, projectRatePerS).toFixed(1) : '',
    // The same with every deadline's T_past + L at ASM's millisecond: rate x 1 ms per deadline.
    deadline_projected_at_1ms: runRatePerS
      ? ((rate / 1000) * (projectRatePerS / runRatePerS)).toFixed(1)
      : '',
    ...resetShareColumn(accounts, weighted),
    ...wireColumns(accounts),
  };
}

/** Of the connections the deadlines dropped, the rate-weighted share whose close was a RST. */
function resetShareColumn(
  accounts: readonly DeadlineAccount[],
  weighted: (f: (a: DeadlineAccount) => number) => number,
): CsvRow {
  const known = accounts.every((a) => a.closeKinds !== undefined);
  return { deadline_reset_share: known ? weighted((a) => a.closeKinds?.resetShare ?? 0).toFixed(2) : '' };
}

/** The deadlines' HBONE closes as the gateway received them (tcpdump), summed; empty without a capture. */
function wireColumns(accounts: readonly DeadlineAccount[]): CsvRow {
  const known = accounts.every((a) => a.wire !== undefined);
  const sum = (f: (w: { fin: number; rst: number }) => number): number | string =>
    known ? accounts.reduce((n, a) => n + (a.wire ? f(a.wire) : 0), 0) : '';
  return { deadline_wire_fin: sum((w) => w.fin), deadline_wire_rst: sum((w) => w.rst) };
}

/** E5's columns (empty without a meshed client): seed 003's metrics, see drain-option-metrics.ts. */
function drainOptionColumns(m: DrainOptionMetrics | undefined): CsvRow {
  const v = (x: number | undefined, digits = 0): number | string =>
    m === undefined || x === undefined ? '' : Number(x.toFixed(digits));
  return {
    client_requests: v(m?.clientRequests),
    client_failed: v(m?.clientFailed),
    stale_hbone_connections: v(m?.staleConnections),
    stale_linger_max_ms: v(m?.staleLingerMaxMs),
    stale_open_at_end: v(m?.staleOpenAtEnd),
    pings_after_gone: v(m?.pingsAfterGone),
    ping_timeouts: v(m?.pingTimeouts),
    hbone_opened_while_terminating: v(m?.hboneOpenedWhileTerminating),
    app_connections_while_terminating: v(m?.appConnectionsWhileTerminating),
    close_notify_sent: v(m?.closeNotifySent),
    client_ztunnel_cpu_avg_pct: v(m?.clientZtunnelCpuPct, 1),
  };
}
