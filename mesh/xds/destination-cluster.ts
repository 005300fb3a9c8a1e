import type { DiscoverySnapshot, WorkloadEntry } from '../discovery/index.ts';
import { TYPE_URL } from './envoy-protos.ts';
import {
  CONNECT_ORIGINATE,
  MESH_CONNECT_TIMEOUT_MS,
  ORIGINAL_DST_METADATA,
  defaultCircuitBreakers,
  hboneOrPlaintextSocketMatches,
  httpProtocolOptions,
} from './istio-clusters.ts';
import { duration, struct, wrapped } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';
import type { RoutePolicy } from './route-policy.ts';

/** A route's destination: a Service of the cluster and one of its ports. */
export interface Destination {
  namespace: string;
  name: string;
  port: number;
}

/** Istio's outbound cluster name for a host and port (pilot/pkg/model/service.go BuildSubsetKey). */
export const clusterNameOf = (host: string, port: number): string => `outbound|${String(port)}||${host}`;

/** The outbound cluster of a Service port. */
export function outboundClusterName(d: Destination): string {
  return clusterNameOf(`${d.name}.${d.namespace}.svc.cluster.local`, d.port);
}

/**
 * endpoints/endpoint_builder.go buildEnvoyLbEndpoint: an ambient pod is reached through
 * connect_originate (internal address `ip:port`, tunnel metadata; `waypoint` names another HBONE
 * address when the tunnel ends elsewhere, as on kind's node ztunnel); any other pod directly.
 */
function lbEndpoint(w: WorkloadEntry, port: number, hbone: boolean): ProtoObject {
  const target = `${w.podIp}:${String(port)}`;
  if (!hbone || w.protocol !== 'HBONE')
    return {
      endpoint: { address: { socket_address: { address: w.podIp, port_value: port } } },
      load_balancing_weight: wrapped(w.capacity),
    };
  return {
    endpoint: {
      address: { envoy_internal_address: { server_listener_name: CONNECT_ORIGINATE, endpoint_id: target } },
    },
    metadata: {
      filter_metadata: {
        [ORIGINAL_DST_METADATA]: struct({
          local: target,
          ...(w.tunnelAddress ? { waypoint: w.tunnelAddress } : {}),
        }),
        'envoy.transport_socket_match': struct({ tunnel: 'http' }),
        istio: struct({ workload: `${w.name};${w.namespace};${w.name};;Kubernetes` }),
      },
    },
    load_balancing_weight: wrapped(w.capacity),
  };
}

export interface DestinationResourcesOptions {
  destination: Destination;
  snapshot: DiscoverySnapshot;
  /** Endpoints in the mesh reached over HBONE (connect_originate) rather than plain TCP. */
  hbone: boolean;
  /** DestinationRule connectionPool for this cluster ({}: Envoy's defaults, as istiod sets none). */
  connectionPool: RoutePolicy['connectionPool'];
}

/**
 * A destination's EDS cluster and its endpoints, as istiod builds an outbound cluster
 * (cluster_builder.go: EDS, LEAST_REQUEST, circuit breakers at MaxUint32, 10 s connect timeout) and
 * its ClusterLoadAssignment: the HEALTHY workloads backing the Service, on the port's targetPort.
 */
export function destinationResources(options: DestinationResourcesOptions): {
  cluster: ProtoObject;
  loadAssignment: ProtoObject;
} {
  const { destination, snapshot, hbone } = options;
  const { namespace, name, port } = destination;
  const clusterName = outboundClusterName(destination);
  const service = snapshot.services.find((s) => s.namespace === namespace && s.name === name);
  const targetPort = service?.ports.find((p) => p.port === port)?.targetPort ?? port;
  const backing = snapshot.workloads.filter(
    (w) => w.status === 'HEALTHY' && w.services.includes(`${namespace}/${name}`),
  );
  return {
    cluster: {
      '@type': TYPE_URL.cluster,
      name: clusterName,
      type: 'EDS',
      eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' }, service_name: clusterName },
      connect_timeout: duration(MESH_CONNECT_TIMEOUT_MS),
      lb_policy: 'LEAST_REQUEST',
      common_lb_config: {},
      circuit_breakers: defaultCircuitBreakers(),
      typed_extension_protocol_options: httpProtocolOptions(options.connectionPool),
      ...(hbone ? { transport_socket_matches: hboneOrPlaintextSocketMatches() } : {}),
    },
    loadAssignment: {
      '@type': TYPE_URL.endpoint,
      cluster_name: clusterName,
      endpoints: [{ lb_endpoints: backing.map((w) => lbEndpoint(w, targetPort, hbone)) }],
    },
  };
}
