import type { ClusterAddresses, ClusterBackend } from '../../../clusters/backend.ts';
import { createProgress, ErrorCode, HarnessError } from '../../../lib/index.ts';
import type { ClusterScenario } from '../cluster-scenario.ts';
import type { ExperimentParams } from '../experiment-params.ts';
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
  const progress = createProgress({ phase: 'cluster', clock, write });
  progress.update(
    params.backend === 'kind'
      ? 'building images, creating the kind cluster, loading images, starting istiod (minutes)'
      : 'starting control plane, nodes, ztunnels, gateway, httpbin',
  );
  await backend.up(signal);
  progress.update('deploying ztunnel, httpbin and the gateway; waiting until requests get through');
  await backend.apply(plan.scenario.manifests(params));
  // kind pulls nothing (images are loaded) but schedules real pods and probes them: give it longer.
  await backend.waitForReady({ timeoutMs: params.backend === 'kind' ? 300_000 : 60_000, signal });
  const targets = loadTargetsOf(plan.scenario, backend.addresses(), params);
  progress.finish(
    `ready: load to ${targets[0] ?? '?'}${targets.length > 1 ? ` and ${String(targets.length - 1)} more` : ''}`,
  );
  return targets;
}
