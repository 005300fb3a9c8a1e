import type { ClusterAddresses } from '../backend.ts';
import { ENVOY_XDS_ADDRESS } from '../manifests/index.ts';
import type { ClusterWatch } from './cluster-watch.ts';
import { toPodInfo } from './pod-info.ts';

/**
 * Where things are on a kind cluster, from what the watches hold: the nodes' InternalIPs (named by the
 * harness's node label), istiod's Service addresses, our namespaces' Services and pods, and the
 * ingress on 127.0.0.1 once the gateway has rolled out.
 */
export function kindAddresses(options: {
  watch: ClusterWatch;
  /** Keeps our namespaces' objects (default, istio-system). */
  ours: <T extends { metadata?: { namespace?: string } }>(list: T[]) => T[];
  /** `127.0.0.1:<port>` when the gateway is rolled out, else undefined. */
  ingress: string | undefined;
  /** A pod's processes as this host sees them (pod-pids.ts), for the CPU monitor. */
  pidsOf?: (uid: string) => number[] | undefined;
}): ClusterAddresses {
  const { watch: w, ours } = options;
  return {
    nodes: w.list('nodes').map((n) => ({
      name: n.metadata?.labels?.['ztunnel-harness/node'] ?? n.metadata?.name ?? '',
      ip: n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '',
    })),
    controlPlane: {
      xds: 'istiod.istio-system.svc:15010',
      ca: 'https://istiod.istio-system.svc:15012',
      envoyXds: ENVOY_XDS_ADDRESS,
    },
    ...(options.ingress ? { ingress: options.ingress } : {}),
    services: ours(w.list('services')).map((s) => ({
      namespace: s.metadata?.namespace ?? 'default',
      name: s.metadata?.name ?? '',
      vip: s.spec?.clusterIP ?? '',
      ports: (s.spec?.ports ?? []).map((p) => ({
        port: p.port,
        targetPort: Number(p.targetPort ?? p.port),
      })),
    })),
    pods: ours(w.list('pods')).map((pod) => {
      const pids = options.pidsOf?.(pod.metadata?.uid ?? '');
      return { ...toPodInfo(pod), ...(pids?.length ? { pids } : {}) };
    }),
  };
}
