import type { ClusterBackend, RolloutResult } from '../../../clusters/backend.ts';
import { formatDuration } from '../../../lib/index.ts';
import type { Companion } from '../cluster-scenario.ts';
import { driveLoad } from '../drive-load.ts';
import type { Observation, RunPlan } from './run-context.ts';

/**
 * The fault (rollout restart or scale) at --restart-at, running beside the load; resolves with the
 * rollout once its old pods are gone. `started` is told the moment the fault is applied.
 */
function scheduleFault(
  plan: RunPlan,
  backend: ClusterBackend,
  signal: AbortSignal,
  started: (atMs: number) => void,
): Promise<RolloutResult | undefined> {
  const { params, clock } = plan;
  const { fault } = plan.scenario;
  if (params.restartAtS === undefined) return Promise.resolve(undefined);
  const restartAtS = params.restartAtS;
  const done = (async () => {
    await clock.sleep(restartAtS * 1000, signal);
    started(clock.now());
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
  done.catch(() => undefined); // awaited by the caller; this only keeps an early rejection observed
  return done;
}

/**
 * Step 3, drive load and apply the fault: the load generator through the targets for --duration, the fault at
 * --restart-at, the scenario's companion (E3's long-lived connections) alongside; then wait for the
 * fault to finish. The run's observation (its backend, signal, load start and scraper) receives each
 * result as soon as it exists, so an abort keeps what was seen.
 */
export async function driveWithFault(
  plan: RunPlan,
  targets: readonly string[],
  into: Observation,
): Promise<void> {
  const { params, clock, scenario, write } = plan;
  const { backend, signal, loadStartMs, scraper } = into;
  if (!scraper) throw new Error('driveWithFault: the metrics scraper was not started');
  const restartDone = scheduleFault(plan, backend, signal, (atMs) => {
    into.rolloutStartedMs = atMs;
  });
  const companion: Companion | undefined = scenario.companion?.({ backend, clock, params, signal });
  try {
    const driven = await driveLoad({
      runDir: plan.runDir,
      generator: plan.generator,
      clock,
      signal,
      params,
      targets: [...targets],
      shape: scenario.loadShape ?? {},
      backend,
      loadStartMs,
      write,
      ...(plan.k6Script ? { k6Script: plan.k6Script } : {}),
      scraper,
      faultStatus: () =>
        into.rolloutStartedMs === undefined
          ? ''
          : `${scenario.fault.target.kind} ${scenario.fault.kind === 'scale' ? 'scaled' : 'restarted'} ${formatDuration(clock.now() - into.rolloutStartedMs)} ago`,
    });
    Object.assign(into, { load: driven.load, tally: driven.tally, cpu: driven.cpu, metrics: driven.metrics });
  } finally {
    if (companion) into.companion = await companion.stop();
  }
  if (params.restartAtS !== undefined) {
    write(
      `waiting for the ${scenario.fault.kind} to finish${scenario.fault.kind === 'scale' ? '' : ' (old pods gone)'}\n`,
    );
    const rollout = await restartDone;
    if (rollout) into.rollout = rollout;
  }
}
