import type { LoadResult } from '../load/index.ts';
import type { Burst, RecordTally } from '../tally/index.ts';
import type { EnvoyCounters } from '../explain/envoy-counters.ts';
import type { BurstExplanation } from '../explain/explain-bursts.ts';
import type { GatewayEvidence } from '../explain/explain-run.ts';
import { judgeRun } from './steps/judge-run.ts';
import { observeRun } from './steps/observe-run.ts';
import { planRun } from './steps/plan-run.ts';
import type { RunRequest } from './steps/run-context.ts';
import { writeRun } from './steps/write-run.ts';

export { BUCKET_MS } from './drive-load.ts';

export interface ClusterRun {
  runDir: string;
  loadStartMs: number;
  row: Record<string, string | number>;
  tally?: RecordTally;
  bursts: Burst[];
  /** Each burst's mechanism and figures (local backend), in the bursts' order. */
  explanations: BurstExplanation[];
  /** What Envoy logged and counted about the gateway's failures (local backend). */
  gatewayEvidence?: GatewayEvidence;
  envoyCounters?: EnvoyCounters;
  /** The judge's notes and the companion's lines (e.g. E3's long-lived connections), for stdout. */
  notes: string[];
  load?: LoadResult;
}

/**
 * One run, as a chain of named steps (steps/): plan (refuse bad input and missing tools before
 * anything starts; the run folder with experiment.yaml and provenance.json), observe (bring the
 * cluster up, drive load with the fault at --restart-at, close the cluster whatever happens),
 * judge (bursts by cause, the verdict), write (summary.csv and the tables, report.html, runs.csv).
 * Any failure or abort after planning still writes the run folder, with verdict `aborted` and why.
 */
export async function runClusterExperiment(request: RunRequest): Promise<ClusterRun> {
  const plan = await planRun(request);
  const seen = await observeRun(plan);
  const judged = await judgeRun(plan, seen);
  const row = await writeRun(plan, seen, judged);
  return {
    runDir: plan.runDir,
    loadStartMs: seen.loadStartMs,
    row,
    bursts: judged.bursts,
    explanations: judged.explanations,
    ...(judged.gatewayEvidence ? { gatewayEvidence: judged.gatewayEvidence } : {}),
    ...(judged.envoyCounters ? { envoyCounters: judged.envoyCounters } : {}),
    notes: [...judged.notes, ...(seen.companion?.lines ?? [])],
    ...(seen.tally ? { tally: seen.tally } : {}),
    ...(seen.load ? { load: seen.load } : {}),
  };
}
