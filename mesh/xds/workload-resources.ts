// The snapshot our ztunnels get over JSON lines (mesh/discovery), as the named Address resources
// istiod serves istio/ztunnel over delta ADS (istio/istio pilot/pkg/xds/workload.go, at
// 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c): every workload and service of the cluster to every
// ztunnel (a wildcard subscription, 59-70), each a resource of its own.
import { createHash } from 'node:crypto';
import type { DiscoverySnapshot, ServiceEntry, WorkloadEntry } from '../discovery/index.ts';
import { TRUST_DOMAIN } from './router-config.ts';
import { encodeAddress, ipBytes } from './workload-protos.ts';
import type { AddressMessage, WorkloadMessage } from './workload-protos.ts';

/** istiod's default cluster id, and ztunnel's when CLUSTER_ID is unset (src/state/workload.rs 502-509). */
export const DEFAULT_CLUSTER_ID = 'Kubernetes';

/** One delta xDS resource: its name, its version (a hash of its bytes) and the message's bytes. */
export interface NamedResource {
  name: string;
  version: string;
  bytes: Uint8Array;
}

/** Resources of one type by name. */
export type ResourceSet = ReadonlyMap<string, NamedResource>;

/**
 * istiod's workload uid for a pod (pilot/pkg/serviceregistry/ambient/helpers.go 32-34:
 * `<cluster>//Pod/<namespace>/<name>`), which is also the Address resource's name
 * (pilot/pkg/model/service.go 1216-1225, 1546-1548). ztunnel removes a workload by that name
 * (src/xds.rs 179-196: `state.workloads.remove(uid)`). It need not equal the ZDS uid (the pod's
 * Kubernetes uid): in shared mode ztunnel matches the pod it serves by name, namespace, service
 * account and node (docs/design/istio-ztunnel-shared-mode.md, LOCAL_XDS in shared mode).
 */
export function workloadUid(workload: Pick<WorkloadEntry, 'namespace' | 'name'>, clusterId: string): string {
  return `${clusterId}//Pod/${workload.namespace}/${workload.name}`;
}

/** A Kubernetes Service's hostname, and the Address resource name of the service (service.go 1504-1506). */
const hostnameOf = (s: { namespace: string; name: string }): string =>
  `${s.name}.${s.namespace}.svc.cluster.local`;
const serviceName = (s: { namespace: string; name: string }): string => `${s.namespace}/${hostnameOf(s)}`;

function workloadMessage(
  w: WorkloadEntry,
  services: ReadonlyMap<string, ServiceEntry>,
  clusterId: string,
): WorkloadMessage {
  const backs = w.services.flatMap((key) => {
    const s = services.get(key);
    return s ? [s] : [];
  });
  // istiod's podWorkloadBuilder (pilot/pkg/serviceregistry/ambient/workloads.go 696-733): status
  // from readiness, node from spec.nodeName, HBONE for a pod in the ambient mesh.
  return {
    uid: workloadUid(w, clusterId),
    name: w.name,
    namespace: w.namespace,
    addresses: [ipBytes(w.podIp)],
    tunnelProtocol: w.protocol === 'HBONE' ? 'HBONE' : 'NONE',
    trustDomain: TRUST_DOMAIN,
    serviceAccount: w.serviceAccount,
    node: w.node,
    workloadType: 'POD',
    status: w.status,
    clusterId,
    services: Object.fromEntries(
      backs.map((s) => [
        serviceName(s),
        { ports: s.ports.map((p) => ({ servicePort: p.port, targetPort: p.targetPort })) },
      ]),
    ),
  };
}

function resource(name: string, message: AddressMessage): NamedResource {
  const bytes = encodeAddress(message);
  return { name, version: createHash('sha256').update(bytes).digest('hex').slice(0, 12), bytes };
}

/**
 * The snapshot as Address resources: a Workload per pod (named by its uid) and a Service per
 * Kubernetes Service (named `<namespace>/<hostname>`). A workload's tunnelAddress (our node-address
 * mode on kind) has no Workload field: istio/ztunnel's binary runs in-pod only here.
 */
export function addressResources(snapshot: DiscoverySnapshot, clusterId = DEFAULT_CLUSTER_ID): ResourceSet {
  const services = new Map(snapshot.services.map((s) => [`${s.namespace}/${s.name}`, s]));
  const out = new Map<string, NamedResource>();
  for (const w of snapshot.workloads) {
    const uid = workloadUid(w, clusterId);
    out.set(uid, resource(uid, { workload: workloadMessage(w, services, clusterId) }));
  }
  for (const s of snapshot.services) {
    const name = serviceName(s);
    out.set(
      name,
      resource(name, {
        service: {
          name: s.name,
          namespace: s.namespace,
          hostname: hostnameOf(s),
          addresses: s.vip ? [{ network: '', address: ipBytes(s.vip) }] : [],
          ports: s.ports.map((p) => ({ servicePort: p.port, targetPort: p.targetPort })),
        },
      }),
    );
  }
  return out;
}

/** An IP from workload.proto's 4 or 16 bytes; undefined for any other length. */
function ipOfBytes(bytes: Uint8Array): string | undefined {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) return undefined;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/** `namespace/hostname` (a Workload's services key, a Service's resource name) as our `namespace/name`. */
function serviceKeyOfHostname(key: string): string {
  const [namespace = '', hostname = ''] = key.split('/');
  return `${namespace}/${hostname.split('.')[0] ?? ''}`;
}

/**
 * What a ztunnel of ours holds from one Address resource (the inverse of addressResources, for the
 * Address resources istiod itself sends): a workload keyed by its resource name (istiod's uid), or a
 * service keyed `namespace/name`. istiod sends more than we use (waypoints, locality, network); it is
 * ignored. Undefined for what our ztunnel cannot route to: a workload or service without an IPv4
 * address (a headless Service, an IPv6-only pod). A Service port's target_port is 0 when the Service
 * names its target port (the number is then per workload); ours then uses the service port.
 */
export function discoveryEntryOf(
  name: string,
  address: AddressMessage,
): { workload: WorkloadEntry } | { service: ServiceEntry } | undefined {
  if ('workload' in address) {
    const w = address.workload;
    const podIp = w.addresses.map(ipOfBytes).find((ip) => ip !== undefined && !ip.includes(':'));
    if (!podIp) return undefined;
    return {
      workload: {
        uid: name,
        name: w.name,
        namespace: w.namespace,
        serviceAccount: w.serviceAccount || 'default',
        node: w.node,
        podIp,
        status: w.status,
        protocol: w.tunnelProtocol === 'HBONE' ? 'HBONE' : 'TCP',
        capacity: 1,
        services: Object.keys(w.services).map(serviceKeyOfHostname),
      },
    };
  }
  const s = address.service;
  const vip = s.addresses
    .map((a) => ipOfBytes(a.address))
    .find((ip) => ip !== undefined && !ip.includes(':'));
  if (!vip) return undefined;
  return {
    service: {
      namespace: s.namespace,
      name: s.name,
      vip,
      ports: s.ports.map((p) => ({ port: p.servicePort, targetPort: p.targetPort || p.servicePort })),
    },
  };
}
