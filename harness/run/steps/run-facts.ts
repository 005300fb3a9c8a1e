import { removalLags } from '../../explain/removal-lag.ts';
import type { RunFacts } from '../../record/run-row.ts';
import type { Judgement } from './judge-run.ts';
import type { Observation, RunPlan } from './run-context.ts';

function rolloutFacts(seen: Observation): Pick<RunFacts, 'rollout'> {
  if (seen.rolloutStartedMs === undefined) return {};
  const done = seen.rollout;
  return {
    rollout: {
      startedAtMs: seen.rolloutStartedMs,
      ...(done ? { statusCompleteAtMs: done.statusCompleteAtMs } : {}),
      ...(done?.oldPodsGoneAtMs === undefined ? {} : { oldPodsGoneAtMs: done.oldPodsGoneAtMs }),
    },
  };
}

/** Everything the summary row says besides the parameters and the tally. */
export function runFacts(plan: RunPlan, seen: Observation, judged: Judgement): RunFacts {
  const { load, cpu } = seen;
  return {
    runId: plan.runId,
    startedAtWallMs: plan.startedAtWallMs,
    gitSha: plan.provenance.git.shortSha,
    generator: { kind: plan.generator.kind, version: plan.generator.version },
    envoyVersion: plan.envoy.version,
    droppedIterations: load?.summary.droppedIterations ?? 0,
    generatorRetried: [...(load?.summary.retried ?? [])].map(([kind, n]) => `${kind}:${String(n)}`).join(' '),
    generatorRequests: load?.summary.httpReqs ?? 0,
    ...(load ? { generatorCpu: load.cpu } : {}),
    ...(cpu ? { componentCpu: cpu.groups } : {}),
    ...(judged.drainOptions ? { drainOptions: judged.drainOptions } : {}),
    ...(judged.gatewayLog
      ? {
          gatewayLog: judged.gatewayLog,
          deadlines: {
            atMs: judged.events.filter((e) => e.kind === 'drain-deadline').map((e) => e.atMs),
            explanations: judged.explanations,
            accounts: judged.deadlineAccounts,
          },
        }
      : {}),
    backend: seen.backend.describe(),
    ...rolloutFacts(seen),
    removalLags: removalLags(judged.events),
    loadStartMs: seen.loadStartMs,
    verdict: judged.verdict,
    reason: judged.reason,
  };
}
