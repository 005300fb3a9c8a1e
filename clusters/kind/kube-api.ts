import {
  ApiextensionsV1Api,
  AppsV1Api,
  PolicyV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  Log,
  PatchStrategy,
  setHeaderOptions,
  VersionApi,
} from '@kubernetes/client-node';
import type { Writable } from 'node:stream';
import type { WorkloadRef } from '../backend.ts';
import type { KubeConfig, KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';
import {
  buildRolloutRestartPatch,
  ROLLOUT_RESTART_FIELD_MANAGER,
  STRATEGIC_MERGE_PATCH,
} from '../manifests/index.ts';

/** Our field manager for server-side apply (the objects the harness owns). */
export const APPLY_FIELD_MANAGER = 'ztunnel-harness';

export interface KubeApi {
  serverVersion(): Promise<string>;
  /** Server-side apply (application/apply-patch+yaml, force: we own these objects). */
  apply(object: KubernetesObject): Promise<void>;
  /** A CustomResourceDefinition as the API server has it (its status conditions); undefined: none. */
  readCrd(name: string): Promise<V1CustomResourceDefinition | undefined>;
  /** What `kubectl rollout restart` sends (strategic merge patch, field manager kubectl-rollout). */
  rolloutRestart(ref: WorkloadRef, now: Date): Promise<{ generation: number }>;
  /** What `kubectl scale` sends: a merge patch of the scale subresource. */
  scale(ref: WorkloadRef, replicas: number): Promise<void>;
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Promise<void>;
  /** What `kubectl cordon` / `uncordon` sends: the node's spec.unschedulable, a strategic merge patch. */
  cordon(node: string, unschedulable: boolean): Promise<void>;
  /**
   * One eviction through the pod's eviction subresource, as `kubectl drain` sends it: `evicted`, or
   * `refused` where a PodDisruptionBudget does not allow it now (429), or `gone` (404).
   */
  evictPod(namespace: string, name: string): Promise<'evicted' | 'refused' | 'gone'>;
  /** A PodDisruptionBudget's generation and the one the disruption controller has seen; undefined: none. */
  readPdb(
    namespace: string,
    name: string,
  ): Promise<{ generation: number; observedGeneration: number } | undefined>;
  /** Deletes a workload; its pods go by garbage collection (background propagation). */
  deleteWorkload(ref: WorkloadRef): Promise<void>;
  /** A container's log, as `kubectl logs -c <container> [--previous]` reads it. */
  podLog(log: PodLogRef): Promise<string>;
  /** A container's log as it is written, into `out` (`kubectl logs -f`); abort to stop. */
  followPodLog(log: PodLogRef, out: Writable): Promise<AbortController>;
}

export interface PodLogRef {
  namespace: string;
  pod: string;
  container: string;
  /** The container instance before its last restart (`--previous`). */
  previous?: boolean;
  /** Only lines from this time on (`--since-time`): a container older than the run. */
  sinceTime?: Date;
}

const codeOf = (err: unknown): unknown => (err as { code?: unknown }).code;

/** Evictions and disruption budgets: what `kubectl drain` sends and reads. */
function disruptionCalls(core: CoreV1Api, policy: PolicyV1Api): Pick<KubeApi, 'evictPod' | 'readPdb'> {
  return {
    async evictPod(namespace, name) {
      try {
        await core.createNamespacedPodEviction({
          name,
          namespace,
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
        });
        return 'evicted';
      } catch (err) {
        if (codeOf(err) === 429) return 'refused';
        if (codeOf(err) === 404) return 'gone';
        throw err;
      }
    },
    async readPdb(namespace, name) {
      try {
        const pdb = await policy.readNamespacedPodDisruptionBudget({ name, namespace });
        return {
          generation: pdb.metadata?.generation ?? 0,
          observedGeneration: pdb.status?.observedGeneration ?? 0,
        };
      } catch (err) {
        if (codeOf(err) === 404) return undefined;
        throw err;
      }
    },
  };
}

export function createKubeApi(kc: KubeConfig): KubeApi {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const version = kc.makeApiClient(VersionApi);
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const policy = kc.makeApiClient(PolicyV1Api);
  return {
    async serverVersion() {
      return (await version.getCode()).gitVersion;
    },
    async apply(object) {
      await objects.patch(
        object,
        undefined,
        undefined,
        APPLY_FIELD_MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      );
    },
    async readCrd(name) {
      try {
        return await extensions.readCustomResourceDefinition({ name });
      } catch (err) {
        if (codeOf(err) === 404) return undefined;
        throw err;
      }
    },
    async rolloutRestart(ref, now) {
      const request = {
        name: ref.name,
        namespace: ref.namespace,
        body: buildRolloutRestartPatch(now),
        fieldManager: ROLLOUT_RESTART_FIELD_MANAGER,
      };
      const options = setHeaderOptions('Content-Type', STRATEGIC_MERGE_PATCH);
      const patched =
        ref.kind === 'Deployment'
          ? await apps.patchNamespacedDeployment(request, options)
          : await apps.patchNamespacedDaemonSet(request, options);
      return { generation: patched.metadata?.generation ?? 0 };
    },
    async scale(ref, replicas) {
      if (ref.kind !== 'Deployment') throw new Error(`cannot scale a ${ref.kind}`);
      await apps.patchNamespacedDeploymentScale(
        {
          name: ref.name,
          namespace: ref.namespace,
          body: { spec: { replicas } },
          fieldManager: 'kubectl-scale',
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
    async deletePod(namespace, name, gracePeriodSeconds) {
      await core.deleteNamespacedPod({
        name,
        namespace,
        ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
      });
    },
    async cordon(node, unschedulable) {
      await core.patchNode(
        { name: node, body: { spec: { unschedulable } } },
        setHeaderOptions('Content-Type', STRATEGIC_MERGE_PATCH),
      );
    },
    ...disruptionCalls(core, policy),
    async deleteWorkload(ref) {
      await objects.delete(
        { apiVersion: 'apps/v1', kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace } },
        undefined,
        undefined,
        undefined,
        undefined,
        'Background',
      );
    },
    async podLog({ namespace, pod, container, previous, sinceTime }) {
      // The API takes sinceSeconds on reads (sinceTime only on follows here): the same window.
      const sinceSeconds = sinceTime ? Math.max(1, Math.ceil((Date.now() - sinceTime.getTime()) / 1000)) : 0;
      return core.readNamespacedPodLog({
        namespace,
        name: pod,
        container,
        ...(previous ? { previous: true } : {}),
        ...(sinceSeconds ? { sinceSeconds } : {}),
      });
    },
    followPodLog({ namespace, pod, container, sinceTime }, out) {
      return new Log(kc).log(namespace, pod, container, out, {
        follow: true,
        ...(sinceTime ? { sinceTime: sinceTime.toISOString() } : {}),
      });
    },
  };
}
