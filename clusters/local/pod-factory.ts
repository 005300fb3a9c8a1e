import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { createHash, randomUUID } from 'node:crypto';
import { DATAPLANE_MODE_LABEL, POD_NETWORK_ANNOTATION, SIDECAR_INJECT_LABEL } from '../manifests/index.ts';
import type { AddressPool } from './address-pool.ts';
import type { PodRecord } from './cluster-state.ts';

/** A short stable hash of a pod template (the pod-template-hash label's role). */
export function hashTemplate(template: V1PodTemplateSpec | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify(template ?? {}))
    .digest('hex')
    .slice(0, 10);
}

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function suffix(): string {
  return Array.from({ length: 5 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');
}

/** A new Pending pod for an owner's template on a node, with fresh addresses. */
export function createPodRecord(options: {
  owner: PodRecord['owner'];
  namespace: string;
  template: V1PodTemplateSpec;
  node: { name: string; ip: string };
  /** 1-based, for the node's bridge in a netns world. */
  nodeIndex: number;
  addresses: AddressPool;
  nowMs: number;
}): PodRecord {
  const { template, owner } = options;
  const spec = template.spec ?? { containers: [] };
  const labels = template.metadata?.labels ?? {};
  const isMeshed = labels[DATAPLANE_MODE_LABEL] === 'ambient';
  // A sidecar owns the pod address the same way ztunnel does for ambient pods.
  const hasSidecar = labels[SIDECAR_INJECT_LABEL] === 'true';
  const netns = template.metadata?.annotations?.[POD_NETWORK_ANNOTATION] === 'netns';
  const { podIp, appIp } = netns
    ? ((ip) => ({ podIp: ip, appIp: ip }))(options.addresses.nextNetnsPod(options.nodeIndex))
    : options.addresses.nextPod();
  const name =
    owner.kind === 'Deployment'
      ? `${owner.name}-${owner.templateHash.slice(0, 8)}-${suffix()}`
      : `${owner.name}-${suffix()}`;
  return {
    uid: randomUUID(),
    name,
    namespace: options.namespace,
    nodeName: options.node.name,
    hostIp: options.node.ip,
    podIp,
    // Outside the mesh and without a sidecar nothing captures the pod address: the app binds it. In
    // a namespace of its own the pod's ztunnel binds its ports there and the app its address.
    appIp: (isMeshed || hasSidecar) && !netns ? appIp : podIp,
    isMeshed,
    ...(netns ? { netns: true } : {}),
    serviceAccount: spec.serviceAccountName ?? 'default',
    labels,
    owner,
    spec,
    phase: 'Pending',
    isReady: false,
    createdAtMs: options.nowMs,
  };
}
