import type { ClusterBackend, RolloutResult, WorkloadRef } from '../../../clusters/backend.ts';
import { ZTUNNEL_DAEMONSET } from '../scenario-manifests.ts';
import { workloadKey } from '../../../clusters/events.ts';
import { formatDuration } from '../../../lib/index.ts';
import type { Companion, Fault } from '../cluster-scenario.ts';
import { driveLoad } from '../drive-load.ts';
import type { Observation, RunPlan } from './run-context.ts';

function faultLabel(fault: Fault): string {
  if (fault.kind === 'scale') return `${fault.target.kind} scaled`;
  if (fault.kind === 'delete')
    return `${fault.target.kind} deleted${fault.alongside ? ` and ${fault.alongside.kind} restarted` : ''}`;
  return fault.alongside
    ? `${fault.target.kind} and ${fault.alongside.kind} restarted`
    : `${fault.target.kind} restarted`;
}

/** When each kind of fault is over, as the progress line says. */
const FAULT_OVER: Record<Fault['kind'], string> = {
  scale: '',
  delete: ' (its pods gone)',
  'rollout-restart': ' (old pods gone)',
};

const isZtunnel = (ref: WorkloadRef): boolean => workloadKey(ref) === workloadKey(ZTUNNEL_DAEMONSET);

/** Two rollouts begun together end when the later one does. */
function lastOf(rollouts: RolloutResult[]): RolloutResult | undefined {
  const [first, ...rest] = rollouts;
  if (!first) return undefined;
  const later = (a?: number, b?: number): number | undefined =>
    a === undefined || b === undefined ? undefined : Math.max(a, b);
  return rest.reduce<RolloutResult>((acc, r) => {
    const oldPodsGoneAtMs = later(acc.oldPodsGoneAtMs, r.oldPodsGoneAtMs);
    return {
      startedAtMs: Math.min(acc.startedAtMs, r.startedAtMs),
      statusCompleteAtMs: Math.max(acc.statusCompleteAtMs, r.statusCompleteAtMs),
      ...(oldPodsGoneAtMs === undefined ? {} : { oldPodsGoneAtMs }),
    };
  }, first);
}

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
    const timeoutMs = params.durationS * 1000 + params.graceS * 2000 + 60_000;
    if (fault.kind === 'delete') {
      if (!backend.deleteWorkload) throw new Error(`the ${backend.kind} backend cannot delete a workload`);
      const deleting = backend.deleteWorkload(fault.target, { timeoutMs, signal });
      if (!fault.alongside) return deleting;
      await backend.rolloutRestart(fault.alongside);
      const rolling = backend.waitForRollout(fault.alongside, { timeoutMs, untilOldPodsGone: true, signal });
      return lastOf(await Promise.all([deleting, rolling]));
    }
    const targets = fault.alongside ? [fault.target, fault.alongside] : [fault.target];
    await Promise.all(targets.map((t) => backend.rolloutRestart(t)));
    // --ztunnel-update delete-all and drain: the DaemonSet is OnDelete; its pods go at once (delete-all)
    // or node by node (drain), and the ones it recreates carry the new template.
    if (params.ztunnelUpdate === 'delete-all')
      await Promise.all(targets.filter(isZtunnel).map((t) => backend.deleteAllPods(t)));
    // --ztunnel-update drain: node by node, the node's meshed pods evicted before its ztunnel goes.
    if (params.ztunnelUpdate === 'drain')
      for (const t of targets.filter(isZtunnel)) {
        if (!backend.drainNodesInTurn) throw new Error(`the ${backend.kind} backend cannot drain nodes`);
        await backend.drainNodesInTurn(t, { timeoutMs, signal });
      }
    const rollouts = await Promise.all(
      targets.map((t) =>
        backend.waitForRollout(t, {
          timeoutMs,
          untilOldPodsGone: true,
          signal,
        }),
      ),
    );
    return lastOf(rollouts);
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
          : `${faultLabel(scenario.fault)} ${formatDuration(clock.now() - into.rolloutStartedMs)} ago`,
    });
    Object.assign(into, { load: driven.load, tally: driven.tally, cpu: driven.cpu, metrics: driven.metrics });
  } finally {
    if (companion) into.companion = await companion.stop();
  }
  if (params.restartAtS !== undefined) {
    write(`waiting for the ${scenario.fault.kind} to finish${FAULT_OVER[scenario.fault.kind]}\n`);
    const rollout = await restartDone;
    if (rollout) into.rollout = rollout;
  }
}
