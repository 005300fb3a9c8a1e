import type { ClusterAddresses, ClusterBackend } from '../../../clusters/backend.ts';
import { createProgress, ErrorCode, HarnessError } from '../../../lib/index.ts';
import type { ClusterScenario } from '../cluster-scenario.ts';
import type { ExperimentParams } from '../../options/experiment-params.ts';
import type { RunPlan } from './run-context.ts';

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

/** Step 2, bring up: the cluster, the scenario's manifests, and requests getting through. */
export async function bringUp(
  plan: RunPlan,
  backend: ClusterBackend,
  signal: AbortSignal,
): Promise<string[]> {
  const { params, clock, write } = plan;
  const { provider } = plan;
  const progress = createProgress({ phase: 'cluster', clock, write });
  progress.update(provider.bringUpText);
  await backend.up(signal);
  progress.update('deploying ztunnel, httpbin and the gateway; waiting until requests get through');
  await backend.apply(plan.scenario.manifests(params));
  await backend.waitForReady({ timeoutMs: provider.readyTimeoutMs, signal });
  const targets = loadTargetsOf(plan.scenario, backend.addresses(), params);
  progress.finish(
    `ready: load to ${targets[0] ?? '?'}${targets.length > 1 ? ` and ${String(targets.length - 1)} more` : ''}`,
  );
  return targets;
}
