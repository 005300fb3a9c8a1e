import { join } from 'node:path';
import { POD_GONE_KINDS } from '../../../clusters/events.ts';
import type { LifecycleEvent } from '../../../clusters/events.ts';
import { measureDrainOptions } from '../../explain/drain-option-metrics.ts';
import type { DrainOptionMetrics } from '../../explain/drain-option-metrics.ts';
import { envoyCounterDeltas } from '../../explain/envoy-counters.ts';
import type { EnvoyCounters } from '../../explain/envoy-counters.ts';
import type { BurstExplanation } from '../../explain/explain-bursts.ts';
import { STILL_OPEN_AFTER_MS } from '../../explain/deadline-accounting.ts';
import type { DeadlineAccount } from '../../explain/deadline-accounting.ts';
import { explainRun } from '../../explain/explain-run.ts';
import type { GatewayEvidence } from '../../explain/explain-run.ts';
import { findBursts } from '../../tally/index.ts';
import type { Burst } from '../../tally/index.ts';
import { BUCKET_MS } from '../drive-load.ts';
import { runFigures } from '../../verdict/run-figures.ts';
import type { RunFacts } from '../../record/run-row.ts';
import { evaluateThresholds, formatThresholdResults, parseThreshold } from '../../verdict/thresholds.ts';
import type { ThresholdResult } from '../../verdict/thresholds.ts';
import { abortReasonOf } from './run-context.ts';
import type { Observation, RunPlan } from './run-context.ts';

/** Causes of loss: a pod going away, or an old ztunnel's drain deadline. */
const TERMINATION_KINDS = new Set<string>([...POD_GONE_KINDS, 'drain-deadline']);

export interface Judgement {
  events: readonly LifecycleEvent[];
  bursts: Burst[];
  /** Each burst's mechanism and figures (local backend, when the gateway's log holds every failure). */
  explanations: BurstExplanation[];
  gatewayLog?: { requests: number; failures: number; warmupFailures?: number };
  /** The gateway's failures by Envoy's details (local backend). */
  gatewayEvidence?: GatewayEvidence;
  /** Envoy's cluster counters between the first and last scrape of the gateway (local backend). */
  envoyCounters?: EnvoyCounters;
  /** Every drain deadline inside the load, accounted for by rate x (T_past + L) (local backend). */
  deadlineAccounts: DeadlineAccount[];
  /** The same, with the deadline each is for. */
  deadlines: { atMs: number; object: string; account: DeadlineAccount }[];
  /** Lines for the run's output: the deadlines too close to the load's end to account. */
  notes: string[];
  drainOptions?: DrainOptionMetrics;
  failed: number;
  /** --max-failed as failed<=N first, then --threshold's, each with the value it met. */
  thresholds: ThresholdResult[];
  verdict: RunFacts['verdict'];
  reason: string;
}

/**
 * When the load ended on the run clock: its planned end, or its last request's end where that came
 * later (a generator that starts after the harness's start, as fortio's pod on kind does about a
 * second later, ends as much later).
 */
function loadEndMs(seen: Observation, durationS: number, wallOffsetMs: number): number {
  const planned = seen.loadStartMs + durationS * 1000;
  const lastEnd = seen.load?.counts.lastEndWallMs ?? NaN;
  return Number.isFinite(lastEnd) ? Math.max(planned, lastEnd - wallOffsetMs) : planned;
}

/**
 * Step 4, judge: failures grouped into bursts by cause (from the gateway's access log and the
 * lifecycle events on the local backend, else contiguous failed buckets against the events), E5's
 * figures, and the verdict against --max-failed.
 */
export async function judgeRun(plan: RunPlan, seen: Observation): Promise<Judgement> {
  const { params, clock } = plan;
  const { tally } = seen;
  const events = seen.backend.events();
  const logDir = join(plan.runDir, 'pods');
  // The components' own logs, as they wrote them during the run (not every backend keeps them).
  const hasLogs = plan.provider.capabilities.has('componentLogs');
  const explained =
    hasLogs && tally
      ? await explainRun({
          logDir,
          events,
          wallOffsetMs: clock.wallOffsetMs,
          load: { startMs: seen.loadStartMs, endMs: loadEndMs(seen, params.durationS, clock.wallOffsetMs) },
          ...(seen.cpu ? { cpuSamples: seen.cpu.samples } : {}),
          ...(seen.load && Number.isFinite(seen.load.counts.firstStartWallMs)
            ? { countedFromWallMs: seen.load.counts.firstStartWallMs }
            : {}),
        })
      : undefined;
  const drainOptions =
    hasLogs && params.meshClientRps > 0
      ? await measureDrainOptions({
          logDir,
          events,
          wallOffsetMs: clock.wallOffsetMs,
          endMs: loadEndMs(seen, params.durationS, clock.wallOffsetMs),
          ...(seen.cpu ? { cpuSamples: seen.cpu.samples } : {}),
        })
      : undefined;
  const envoyCounters = seen.metrics ? envoyCounterDeltas(seen.metrics) : undefined;
  const generatorFailed = tally ? tally.total - tally.timeline.totals().ok : 0;
  // The access log holds every failure the generator saw unless load bypassed the gateway (E3),
  // and the first attempts of the calls fortio retried on a new connection (it counts the retry).
  const retried = [...(seen.load?.summary.retried?.values() ?? [])].reduce((n, c) => n + c, 0);
  const byCause = explained !== undefined && explained.gateway.failures === generatorFailed + retried;
  const causes = events.filter((e) => TERMINATION_KINDS.has(e.kind));
  const bursts = byCause
    ? explained.bursts
    : tally
      ? findBursts(tally.timeline.buckets(), BUCKET_MS, causes)
      : [];
  const failed = generatorFailed + (seen.companion?.failed ?? 0);
  // Aborted, even after the load ended (a crash while the cluster closed): not a result to trust.
  const abortReason = seen.abortReason || (seen.signal.aborted ? abortReasonOf(seen.signal) : '');
  // E3's long-lived connections count as failed requests too.
  const figures = runFigures({
    tally,
    bursts,
    droppedIterations: seen.load?.summary.droppedIterations ?? 0,
    failed,
  });
  // --max-failed is the shorthand failed<=N, first (where the scenario or the user sets a count);
  // then the thresholds (the user's, else the scenario's: Istio's tests judge a success rate).
  const budget =
    params.maxFailed === undefined ? [] : [parseThreshold(`failed<=${String(params.maxFailed)}`)];
  const results = evaluateThresholds(
    [...budget, ...params.thresholds.map((t) => parseThreshold(t))],
    figures,
  );
  // A proxy that refused its configuration ran on an older one: nothing measured is what was asked.
  const nacks = events.filter((e) => e.kind === 'xds-nack');
  const verdict: RunFacts['verdict'] = abortReason
    ? 'aborted'
    : results.every((r) => r.ok) && nacks.length === 0
      ? 'pass'
      : 'fail';
  const first = budget.length > 0 ? results[0] : undefined;
  const others = results.slice(budget.length);
  const budgetText =
    params.maxFailed === undefined
      ? `${String(failed)} failed of ${String(figures.requests)}`
      : `${String(failed)} failed ${first?.ok ? '<=' : '>'} ${String(params.maxFailed)}`;
  const judged = [
    ...nacks.map((e) => `configuration refused by ${e.object}: ${e.detail ?? ''}`),
    budgetText,
    ...(others.length > 0 ? [formatThresholdResults(others)] : []),
  ].join('; ');
  return {
    events,
    bursts,
    explanations: byCause ? explained.explanations : [],
    deadlineAccounts: byCause ? explained.accounts.map((a) => a.account) : [],
    deadlines: byCause
      ? explained.accounts.map((a) => ({
          atMs: a.deadline.atMs,
          object: a.deadline.object,
          account: a.account,
        }))
      : [],
    notes: byCause
      ? explained.unaccounted.map(
          ({ deadline, loadAfterMs }) =>
            `drain deadline ${deadline.object} at ${((deadline.atMs - seen.loadStartMs) / 1000).toFixed(3)} s: not accounted, the load ended ${(loadAfterMs / 1000).toFixed(2)} s after it (which connections a deadline closed is told by their silence over the ${String(STILL_OPEN_AFTER_MS / 1000)} s after it)`,
        )
      : [],
    ...(explained ? { gatewayLog: explained.gateway, gatewayEvidence: explained.evidence } : {}),
    ...(envoyCounters ? { envoyCounters } : {}),
    ...(drainOptions ? { drainOptions } : {}),
    failed,
    thresholds: results,
    verdict,
    reason: abortReason || judged,
  };
}
