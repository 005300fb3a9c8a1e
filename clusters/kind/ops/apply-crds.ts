import type { KubernetesObject } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import type { KindRun } from '../kind-run.ts';
import { need } from '../kind-workloads.ts';
import { validateAgainstModels } from '../model-check.ts';

const CRD_TYPE = 'V1CustomResourceDefinition';

export interface ApplyCrdsOptions {
  /** How long the API server may take to establish them all. */
  timeoutMs: number;
  pollMs?: number;
  signal?: AbortSignal | undefined;
}

/** The Established condition's status and message, or why there is none. */
async function establishedOf(run: KindRun, name: string): Promise<{ ok: boolean; why: string }> {
  const crd = await need(run).api.readCrd(name);
  const condition = crd?.status?.conditions?.find((c) => c.type === 'Established');
  if (!crd) return { ok: false, why: 'not found' };
  if (!condition) return { ok: false, why: 'no Established condition yet' };
  return {
    ok: condition.status === 'True',
    why: `Established=${condition.status} ${condition.message ?? ''}`.trim(),
  };
}

/**
 * CustomResourceDefinitions applied (server-side, checked against client-node's models as every
 * manifest is) and waited on until the API server serves each: its Established condition True, as
 * `kubectl wait --for condition=established` waits (a CRD's resources 404 until then, and an
 * informer started on them would fail). Polled on the run's clock; past `timeoutMs` the run fails
 * naming the CRD and its last condition.
 */
export async function applyCrds(
  run: KindRun,
  crds: readonly KubernetesObject[],
  options: ApplyCrdsOptions,
): Promise<void> {
  if (crds.length === 0) return;
  validateAgainstModels(crds);
  // client-node serializes a CRD by its model's attribute names (`x_kubernetes_int_or_string`), so a
  // CRD as its YAML spells it (`x-kubernetes-int-or-string`) would lose those fields on the way, and
  // the API server refuses the schema (observedGeneration's `type: Required value`): typed first.
  for (const crd of crds)
    await need(run).api.apply(ObjectSerializer.deserialize(crd, CRD_TYPE) as KubernetesObject);
  const { clock } = run.settings;
  const deadline = clock.now() + options.timeoutMs;
  for (const name of crds.map((c) => c.metadata?.name ?? '')) {
    for (let state = await establishedOf(run, name); !state.ok; state = await establishedOf(run, name)) {
      if (clock.now() >= deadline)
        throw new HarnessError(
          ErrorCode.ComponentFailed,
          `CustomResourceDefinition ${name} not established within ${String(options.timeoutMs / 1000)} s (${state.why}); see the API server's log (kind export logs)`,
        );
      await clock.sleep(options.pollMs ?? 200, options.signal);
    }
  }
}
