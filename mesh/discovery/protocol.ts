/**
 * The workload discovery protocol between the control plane (server) and ztunnels (clients): a
 * simplified delta xDS for Istio's WDS (istio/ztunnel proto/workload.proto, served as
 * DeltaDiscoveryRequest/Response). JSON lines over TCP on loopback.
 *
 * client -> server  { type: 'subscribe', protocol, node, instance, known? }
 * server -> client  { type: 'delta', version, nonce, workloads: { upsert, remove }, services: { upsert, remove } }
 * client -> server  { type: 'ack', nonce, version } | { type: 'nack', nonce, error }
 *
 * As in xDS, a NACKed delta is not applied at all and the client keeps its last good state; the
 * server learns the client's version from the ACK. The first delta after subscribe is the full state.
 * A client resubscribing after a drop names in `known` what it holds; the first delta then also
 * removes what of that is gone, as istiod answers `initial_resource_versions` on a delta xDS
 * reconnect (istio/istio pilot/pkg/xds/delta.go deltaWatchedResources; ztunnel's resume,
 * istio/ztunnel src/xds/client.rs run_internal).
 */
export const DISCOVERY_PROTOCOL_VERSION = 1;

export type WorkloadStatus = 'HEALTHY' | 'UNHEALTHY';

export interface WorkloadEntry {
  uid: string;
  name: string;
  namespace: string;
  serviceAccount: string;
  node: string;
  podIp: string;
  status: WorkloadStatus;
  /**
   * How peers reach it (upstream's `tunnel_protocol`): HBONE for ambient pods, TCP for pods outside
   * the mesh (istiod sends those too, so clients can reach them directly).
   */
  protocol: 'HBONE' | 'TCP';
  /**
   * Where HBONE to it terminates when not on the pod's own address (IP:port): its node's ztunnel in
   * node-address mode (kind, hostNetwork). Absent: pod IP:15008, ztunnel's in-pod mode.
   */
  tunnelAddress?: string;
  /** Load-balancing weight (upstream's `capacity`, default 1). */
  capacity: number;
  /** Service keys (`namespace/name`) this workload backs. */
  services: string[];
}

export interface ServicePort {
  port: number;
  targetPort: number;
}

export interface ServiceEntry {
  namespace: string;
  name: string;
  vip: string;
  ports: ServicePort[];
}

export interface Delta<T> {
  upsert: T[];
  remove: string[];
}

export type ServerMessage = {
  type: 'delta';
  version: string;
  nonce: string;
  workloads: Delta<WorkloadEntry>;
  services: Delta<ServiceEntry>;
};

export type ClientMessage =
  | {
      type: 'subscribe';
      protocol: number;
      node: string;
      instance: string;
      /** What a resubscribing client holds: workload uids and service keys. */
      known?: { workloads: string[]; services: string[] };
    }
  | { type: 'ack'; nonce: string; version: string }
  | { type: 'nack'; nonce: string; error: string };

export function serviceKey(service: { namespace: string; name: string }): string {
  return `${service.namespace}/${service.name}`;
}

/** The HBONE address (IP:15008 or the node's ztunnel) to CONNECT through to reach a workload. */
export function hboneAddressOf(workload: Pick<WorkloadEntry, 'podIp' | 'tunnelAddress'>): string {
  return workload.tunnelAddress ?? `${workload.podIp}:15008`;
}
