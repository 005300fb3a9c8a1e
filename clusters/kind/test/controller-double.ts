// The controllers and kubelets a kind cluster would run, played against the API server double so the
// kind backend can go through the backend contract without Docker: a Deployment's pods follow its
// template (pod-template-hash, a new set before the old one goes: maxSurge), its status counts them
// as the deployment controller does, a deleted pod's containers exit and the pod goes after a step,
// a deleted Deployment takes its pods with it (garbage collection). Every change takes `stepMs`,
// so the backend sees the intermediate states a real cluster shows through its watches.
import { createHash } from 'node:crypto';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { ApiServerDouble } from './api-server-double.ts';

type Stored = Parameters<ApiServerDouble['put']>[1];
type Resource = Parameters<ApiServerDouble['put']>[0];

const hashOf = (template: unknown): string =>
  createHash('sha256').update(JSON.stringify(template)).digest('hex').slice(0, 10);

const ownedBy = (pod: V1Pod, deployment: V1Deployment): boolean =>
  pod.metadata?.namespace === deployment.metadata?.namespace &&
  (pod.metadata?.ownerReferences ?? []).some(
    (r) => r.kind === 'ReplicaSet' && r.name.startsWith(`${deployment.metadata?.name ?? ''}-`),
  ) &&
  pod.metadata?.labels?.['app.kubernetes.io/controller-double'] === deployment.metadata?.name;

const isReady = (pod: V1Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export function startControllerDouble(
  api: ApiServerDouble,
  options: { stepMs?: number } = {},
): { stop(): void } {
  const stepMs = options.stepMs ?? 20;
  let podNumber = 0;
  let stopped = false;
  let scheduled: NodeJS.Timeout | undefined;
  const pods = () => api.list('pods') as V1Pod[];
  const store = (resource: Resource, object: V1Pod | V1Deployment): void => {
    api.put(resource, object as unknown as Stored);
  };

  const newPod = (d: V1Deployment, hash: string): V1Pod => {
    podNumber += 1;
    const name = `${d.metadata?.name ?? ''}-${hash}-${String(podNumber)}`;
    const template = d.spec?.template;
    return {
      metadata: {
        name,
        namespace: d.metadata?.namespace ?? 'default',
        uid: `uid-${name}`,
        labels: {
          ...template?.metadata?.labels,
          'pod-template-hash': hash,
          'app.kubernetes.io/controller-double': d.metadata?.name ?? '',
        },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: `${d.metadata?.name ?? ''}-${hash}`,
            uid: 'rs',
            controller: true,
          },
        ],
      },
      spec: {
        ...template?.spec,
        containers: template?.spec?.containers ?? [],
        nodeName: 'harness-test-worker',
      },
      status: {
        phase: 'Running',
        podIP: `10.244.${String(Math.floor(podNumber / 250))}.${String((podNumber % 250) + 2)}`,
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: (template?.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? '',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date() } },
        })),
      },
    };
  };

  /** A pod marked for deletion: its containers exit (not Ready, terminal), and on the next step it goes. */
  const terminate = (pod: V1Pod): void => {
    if (!pod.metadata?.deletionTimestamp) return;
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    if (pod.status?.phase === 'Succeeded') {
      api.remove('pods', ns, name);
      return;
    }
    store('pods', {
      ...pod,
      status: {
        ...pod.status,
        phase: 'Succeeded',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: (pod.status?.containerStatuses ?? []).map((s) => ({
          ...s,
          ready: false,
          state: { terminated: { exitCode: 0, finishedAt: new Date() } },
        })),
      },
    });
  };

  const markDeleting = (pod: V1Pod): void => {
    const graceS = pod.spec?.terminationGracePeriodSeconds ?? 30;
    store('pods', {
      ...pod,
      metadata: {
        ...pod.metadata,
        deletionTimestamp: new Date(Date.now() + graceS * 1000),
        deletionGracePeriodSeconds: graceS,
      },
    });
  };

  /** The deployment controller, one step: surge the new set, then retire the old; then the status. */
  const reconcile = (d: V1Deployment): void => {
    const owned = pods().filter((p) => ownedBy(p, d) && !p.metadata?.deletionTimestamp);
    if (d.metadata?.deletionTimestamp) {
      for (const p of owned) markDeleting(p);
      if (!pods().some((p) => ownedBy(p, d)))
        api.remove('deployments', d.metadata.namespace ?? '', d.metadata.name ?? '');
      return;
    }
    const hash = hashOf(d.spec?.template);
    const desired = d.spec?.replicas ?? 1;
    const current = owned.filter((p) => p.metadata?.labels?.['pod-template-hash'] === hash);
    const old = owned.filter((p) => p.metadata?.labels?.['pod-template-hash'] !== hash);
    if (current.length < desired) store('pods', newPod(d, hash));
    else if (current.length > desired) markDeleting(current[current.length - 1] as V1Pod);
    else if (old.length > 0 && current.every(isReady)) markDeleting(old[0] as V1Pod);
    const live = pods().filter((p) => ownedBy(p, d) && !p.metadata?.deletionTimestamp);
    const updated = live.filter((p) => p.metadata?.labels?.['pod-template-hash'] === hash);
    const status = {
      observedGeneration: d.metadata?.generation ?? 1,
      replicas: live.length,
      updatedReplicas: updated.length,
      readyReplicas: live.filter(isReady).length,
      availableReplicas: live.filter(isReady).length,
    };
    if (JSON.stringify(status) !== JSON.stringify(d.status)) store('deployments', { ...d, status });
  };

  const step = (): void => {
    scheduled = undefined;
    if (stopped) return;
    for (const pod of pods()) terminate(pod);
    for (const d of api.list('deployments') as V1Deployment[]) reconcile(d);
  };
  api.onChange(() => {
    if (!stopped && !scheduled) scheduled = setTimeout(step, stepMs);
  });
  return {
    stop() {
      stopped = true;
      clearTimeout(scheduled);
    },
  };
}
