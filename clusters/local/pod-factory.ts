import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { createHash, randomUUID } from 'node:crypto';
import {
  DATAPLANE_MODE_LABEL,
  IMAGES,
  runsDedicatedZtunnel,
  POD_NETWORK_ANNOTATION,
  SIDECAR_INJECT_LABEL,
} from '../manifests/index.ts';
import { appAddressOf } from '../netns/network-world.ts';
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
  /**
   * istio/ztunnel is the node's ztunnel in shared mode (--ztunnel-impl istio-shared): the ztunnel
   * DaemonSet's pods get a network namespace each (its fixed ports), and a meshed pod's app binds
   * the pod's own address, where the binary's inbound connects from inside the pod's namespace.
   */
  istioShared?: boolean;
}): PodRecord {
  const { template, owner } = options;
  const spec = template.spec ?? { containers: [] };
  const labels = template.metadata?.labels ?? {};
  const isMeshed = labels[DATAPLANE_MODE_LABEL] === 'ambient';
  // A sidecar owns the pod address the same way ztunnel does for ambient pods.
  const hasSidecar = labels[SIDECAR_INJECT_LABEL] === 'true';
  const isSharedIstio =
    options.istioShared === true && spec.containers.some((c) => c.image === IMAGES.ztunnel);
  const netns = template.metadata?.annotations?.[POD_NETWORK_ANNOTATION] === 'netns' || isSharedIstio;
  const dedicatedZtunnel = spec.containers.some(runsDedicatedZtunnel);
  // The binary's inbound dials the CONNECT's pod address inside the pod (no in-pod redirection here).
  const appOnPodIp = dedicatedZtunnel || options.istioShared === true;
  const { podIp, appIp } = netns
    ? ((ip) => ({ podIp: ip, appIp: appAddressOf(ip) }))(options.addresses.nextNetnsPod(options.nodeIndex))
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
    // Outside the mesh and without a sidecar nothing captures the pod address: the app binds it. A
    // dedicated ztunnel binds the wildcard of the pod's namespace and the app the pod's address.
    appIp: (isMeshed || hasSidecar) && !appOnPodIp ? appIp : podIp,
    isMeshed,
    ...(netns ? { netns: true } : {}),
    ...(dedicatedZtunnel ? { dedicatedZtunnel: true } : {}),
    ...(netns && isMeshed && !dedicatedZtunnel && options.istioShared === true ? { inpodCapture: true } : {}),
    serviceAccount: spec.serviceAccountName ?? 'default',
    labels,
    owner,
    spec,
    phase: 'Pending',
    isReady: false,
    createdAtMs: options.nowMs,
  };
}
