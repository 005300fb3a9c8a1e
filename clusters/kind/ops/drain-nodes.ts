// --ztunnel-update drain: ztunnel upgraded the way sail-operator#1552 recommends, node by node with
// the node's workloads moved away first, so that no connection is left for the old ztunnel to
// reset at its deadline. Each node in turn: cordon; evict its meshed pods through the Eviction API
// as `kubectl drain --ignore-daemonsets` does (a refused eviction, 429 under a PodDisruptionBudget,
// tried again 5 s later: kubectl's EvictErrorRetryDelay, k8s.io/kubectl pkg/cmd/drain/drain.go and
// pkg/drain/drain.go); wait for them to be gone; delete the node's ztunnel pod (the DaemonSet is
// OnDelete, so its replacement carries the new template); wait for the replacement Ready; uncordon.
//
// What is drained: the node's meshed pods (istio.io/dataplane-mode=ambient), the traffic ztunnel
// carries, as `kubectl drain --pod-selector istio.io/dataplane-mode=ambient`. The harness's own pods
// outside the mesh (the load generator, the gateway, istiod, E3's client) stay where they are pinned:
// ztunnel carries none of their traffic, and evicting the load would end the measurement. Each
// drained Deployment gets the budget an operator who drains keeps (maxUnavailable 1), so a node's
// pods leave one at a time as their replacements elsewhere become Ready.
import type { V1Deployment, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import type { WorkloadRef } from '../../backend.ts';
import { workloadKey } from '../../events.ts';
import { DATAPLANE_MODE_LABEL } from '../../manifests/index.ts';
import { emitEvent } from '../kind-run.ts';
import type { KindRun } from '../kind-run.ts';
import { isLoadPod, need, owned, podsOf, waitForChange } from '../kind-workloads.ts';
import { deletePod } from './delete-pod.ts';
import { isPodReady, ownerOf } from '../pod-info.ts';

/** kubectl drain's wait after a refused eviction. */
export const EVICT_RETRY_MS = 5000;

export interface DrainOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

const keyOf = (p: V1Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

/** The node's pods a drain evicts: meshed, not a DaemonSet's, not our load pods, not going already. */
export function podsToEvict(pods: readonly V1Pod[], node: string): V1Pod[] {
  return pods.filter(
    (p) =>
      p.spec?.nodeName === node &&
      p.metadata?.labels?.[DATAPLANE_MODE_LABEL] === 'ambient' &&
      !ownerOf(p).startsWith('daemonset/') &&
      !isLoadPod(p) &&
      !p.metadata.deletionTimestamp,
  );
}

/** The budget an operator keeps on a Deployment it drains: one pod away at a time. */
export function drainBudget(deployment: V1Deployment): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: deployment.metadata?.name ?? '',
      namespace: deployment.metadata?.namespace ?? 'default',
    },
    spec: { maxUnavailable: 1, selector: deployment.spec?.selector ?? {} },
  };
}

async function applyBudgets(run: KindRun, nodes: readonly string[], options: DrainOptions): Promise<void> {
  const { api, watch } = need(run);
  const pods = owned(run, watch.list('pods'));
  const drained = new Set(nodes.flatMap((n) => podsToEvict(pods, n)).map(ownerOf));
  const deployments = owned(run, watch.list('deployments')).filter((d) =>
    drained.has(`deployment/${d.metadata?.name ?? ''}`),
  );
  const { clock } = run.settings;
  for (const d of deployments) {
    const budget = drainBudget(d);
    await api.apply(budget);
    const { namespace = '', name = '' } = budget.metadata ?? {};
    // Evictions are judged against the disruption controller's status: wait until it has seen this one.
    const until = clock.now() + options.timeoutMs;
    for (;;) {
      const seen = await api.readPdb(namespace, name);
      if (seen && seen.observedGeneration >= seen.generation) break;
      if (clock.now() > until)
        throw new Error(`the disruption controller did not compute PodDisruptionBudget ${namespace}/${name}`);
      await clock.sleep(200, options.signal);
    }
  }
}

/** One pod evicted, a refusal tried again after EVICT_RETRY_MS, as kubectl drain does. */
async function evict(run: KindRun, pod: V1Pod, options: DrainOptions): Promise<void> {
  const { api } = need(run);
  const { clock } = run.settings;
  const namespace = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name ?? '';
  const until = clock.now() + options.timeoutMs;
  while ((await api.evictPod(namespace, name)) === 'refused') {
    if (clock.now() > until)
      throw new Error(`pod ${namespace}/${name}: every eviction refused by its PodDisruptionBudget`);
    await clock.sleep(EVICT_RETRY_MS, options.signal);
  }
}

async function drainNode(run: KindRun, daemonSet: WorkloadRef, node: string, options: DrainOptions) {
  const { api, watch } = need(run);
  const wait = <T>(what: string, check: () => T | undefined) =>
    waitForChange(run, { timeoutMs: options.timeoutMs, signal: options.signal, what, check });
  await api.cordon(node, true);
  emitEvent(run, 'node-cordoned', `node/${node}`, 'kubectl cordon', node, 'harness');
  const victims = podsToEvict(owned(run, watch.list('pods')), node);
  await Promise.all(victims.map((p) => evict(run, p, options)));
  const names = new Set(victims.map(keyOf));
  await wait(`the evicted pods on node ${node} to be gone`, () =>
    watch.list('pods').some((p) => names.has(keyOf(p))) ? undefined : true,
  );
  const old = podsOf(run, daemonSet).filter(
    (p) => p.spec?.nodeName === node && !p.metadata?.deletionTimestamp,
  );
  for (const p of old) await deletePod(run, daemonSet.namespace, p.metadata?.name ?? '');
  const oldNames = new Set(old.map((p) => p.metadata?.name));
  await wait(`${workloadKey(daemonSet)}'s new pod on node ${node} to be Ready`, () =>
    podsOf(run, daemonSet).some(
      (p) => p.spec?.nodeName === node && !oldNames.has(p.metadata?.name) && isPodReady(p),
    )
      ? true
      : undefined,
  );
  await api.cordon(node, false);
  emitEvent(run, 'node-uncordoned', `node/${node}`, 'kubectl uncordon', node, 'harness');
}

/**
 * The DaemonSet's pods replaced node by node, each node drained of its meshed pods first (the file's
 * header). Nodes in name order; resolves once the last node is uncordoned. A failure leaves the node
 * it was on cordoned: the cluster is the run's and goes with it.
 */
export async function drainNodesInTurn(
  run: KindRun,
  daemonSet: WorkloadRef,
  options: DrainOptions,
): Promise<void> {
  const nodes = [...new Set(podsOf(run, daemonSet).map((p) => p.spec?.nodeName ?? ''))]
    .filter((n) => n !== '')
    .sort();
  await applyBudgets(run, nodes, options);
  for (const node of nodes) await drainNode(run, daemonSet, node, options);
}
