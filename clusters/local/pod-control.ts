// The controllers' pod control (kube-controller-manager's controller_utils.go PodControl): the pods
// an owner has, and a pod created or deleted through the API server.
import type { V1DaemonSet, V1Deployment } from '@kubernetes/client-node';
import { NODE_LABEL } from '../manifests/index.ts';
import type { PodRecord } from './cluster-state.ts';
import { isActive, podKey } from './cluster-state.ts';
import type { ControllerContext } from './controller-context.ts';
import { createPodRecord } from './pod-factory.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

export interface OwnerRef {
  kind: PodRecord['owner']['kind'];
  namespace: string;
  name: string;
}

export interface CreatePodInput {
  owner: PodRecord['owner'];
  object: V1Deployment | V1DaemonSet;
  /** The DaemonSet's node; a Deployment's pod goes where the scheduler stand-in puts it. */
  nodeName?: string;
}

/** Every pod of one owner, deleted or not, as the controller's informer cache holds them. */
export function podsOf(ctx: ControllerContext, owner: OwnerRef): PodRecord[] {
  return [...ctx.state.pods.values()].filter(
    (p) => p.owner.kind === owner.kind && p.owner.name === owner.name && p.namespace === owner.namespace,
  );
}

/**
 * Scheduler stand-in: the named node (DaemonSet), else among the nodes the nodeSelector allows
 * (only the ztunnel-harness/node label), the one with the fewest of the owner's pods.
 */
function scheduleNode(
  ctx: ControllerContext,
  input: CreatePodInput & { namespace: string },
): ControllerContext['nodes'][number] | undefined {
  const { owner, object, namespace } = input;
  const load = (n: string): number =>
    podsOf(ctx, { kind: owner.kind, namespace, name: owner.name }).filter(
      (p) => p.nodeName === n && isActive(p),
    ).length;
  const selector = Object.entries(object.spec?.template.spec?.nodeSelector ?? {});
  const eligible = ctx.nodes.filter((n) => selector.every(([k, v]) => k === NODE_LABEL && v === n.name));
  return (
    ctx.nodes.find((n) => n.name === input.nodeName) ??
    [...eligible].sort((a, b) => load(a.name) - load(b.name))[0]
  );
}

export function createPod(ctx: ControllerContext, input: CreatePodInput): void {
  const { owner, object } = input;
  const namespace = object.metadata?.namespace ?? 'default';
  const node = scheduleNode(ctx, { ...input, namespace });
  if (!node || !object.spec?.template) return;
  const pod = createPodRecord({
    owner,
    namespace,
    template: object.spec.template,
    node,
    nodeIndex: ctx.nodes.indexOf(node) + 1,
    addresses: ctx.addresses,
    nowMs: ctx.clock.now(),
    ...(ctx.istioShared ? { istioShared: true } : {}),
  });
  ctx.state.pods.set(podKey(pod), pod);
  ctx.emit('pod-created', podKey(pod), { detail: `${pod.podIp} (app ${pod.appIp})`, node: node.name });
}

export function deletePod(ctx: ControllerContext, pod: PodRecord, why: string): void {
  pod.deletionAtMs = ctx.clock.now();
  ctx.emit('pod-deleting', podKey(pod), { detail: why, node: pod.nodeName });
}
