import type { DiscoverySnapshot, WorkloadEntry } from '../discovery/index.ts';
import { accessLogConfig } from './access-log.ts';
import { TYPE_URL } from './envoy-protos.ts';
import {
  CONNECT_ORIGINATE,
  MESH_CONNECT_TIMEOUT_MS,
  ORIGINAL_DST_METADATA,
  connectOriginateCluster,
  connectOriginateListener,
  defaultCircuitBreakers,
  hboneOrPlaintextSocketMatches,
  httpProtocolOptions,
} from './istio-clusters.ts';
import type { ProxyNode } from './proxy-node.ts';
import { duration, extension, struct, wrapped } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';
import { checkRetryOn, routePolicyOf } from './route-policy.ts';
import type { RoutePolicy } from './route-policy.ts';

export const TRUST_DOMAIN = 'cluster.local';
/** The Gateway's server port on the pod (the Service's port 80 targets it). */
export const GATEWAY_LISTENER_PORT = 8080;

/** Istio's outbound cluster name (pilot/pkg/model/service.go BuildSubsetKey). */
export function outboundClusterName(d: RoutePolicy['destination']): string {
  return `outbound|${String(d.port)}||${d.name}.${d.namespace}.svc.cluster.local`;
}

/** istiod sends HBONE unless the proxy's metadata says DISABLE_HBONE_SEND (pilot/pkg/model/context.go). */
export const sendsHbone = (node: ProxyNode): boolean => node.metadata['DISABLE_HBONE_SEND'] !== 'true';

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

/** Istio's route retry policy (retry.go ConvertPolicy / DefaultPolicy). */
function retryPolicy(retries: RoutePolicy['retries']): ProtoObject | undefined {
  if (retries.attempts === 0) return undefined; // attempts: 0 disables retries (nil policy)
  const conditions = checkRetryOn(retries.retryOn);
  const codes = conditions.filter((c) => /^\d{3}$/.test(c)).map(Number);
  const named = conditions.filter((c) => !/^\d{3}$/.test(c));
  if (codes.length && !named.includes('retriable-status-codes')) named.push('retriable-status-codes');
  return {
    retry_on: named.join(','),
    num_retries: wrapped(retries.attempts),
    ...(codes.length ? { retriable_status_codes: codes } : {}),
    retry_host_predicate: [
      extension(
        'envoy.retry_host_predicates.previous_hosts',
        'envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate',
      ),
    ],
    host_selection_retry_max_attempts: '5',
  };
}

/** The gateway's HTTP listener (gateway.go / listener_builder.go buildHTTPConnectionManager). */
function gatewayListener(node: ProxyNode, routeName: string): ProtoObject {
  const name = `0.0.0.0_${String(GATEWAY_LISTENER_PORT)}`;
  return {
    '@type': TYPE_URL.listener,
    name,
    // A pod's 0.0.0.0 is its own address; the local backend's pods share a host, so: the pod IP.
    address: { socket_address: { address: node.ip, port_value: GATEWAY_LISTENER_PORT } },
    traffic_direction: 'OUTBOUND',
    filter_chains: [
      {
        filters: [
          extension(
            'envoy.filters.network.http_connection_manager',
            'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
            {
              stat_prefix: `outbound_${name}`,
              codec_type: 'AUTO',
              rds: { config_source: { ads: {}, resource_api_version: 'V3' }, route_config_name: routeName },
              use_remote_address: { value: true },
              normalize_path: { value: true },
              path_with_escaped_slashes_action: 'KEEP_UNCHANGED',
              stream_idle_timeout: duration(0),
              forward_client_cert_details: 'SANITIZE_SET',
              set_current_client_cert_details: { subject: { value: true }, dns: true, uri: true },
              upgrade_configs: [{ upgrade_type: 'websocket' }],
              access_log: [accessLogConfig()],
              http_filters: [
                extension('envoy.filters.http.router', 'envoy.extensions.filters.http.router.v3.Router'),
              ],
            },
          ),
        ],
      },
    ],
  };
}

export interface ProxyResources {
  [typeUrl: string]: ProtoObject[];
}

/**
 * Everything a router (ingress gateway) proxy gets: its listener and route to the destination
 * Service, the Service's EDS cluster and endpoints, and (with HBONE send) connect_originate.
 */
export function routerResources(node: ProxyNode, snapshot: DiscoverySnapshot): ProxyResources {
  const policy = routePolicyOf(node.metadata);
  const hbone = sendsHbone(node);
  const clusterName = outboundClusterName(policy.destination);
  const routeName = `http.${String(GATEWAY_LISTENER_PORT)}`;
  const { namespace, name, port } = policy.destination;
  const service = snapshot.services.find((s) => s.namespace === namespace && s.name === name);
  const targetPort = service?.ports.find((p) => p.port === port)?.targetPort ?? port;
  const backing = snapshot.workloads.filter(
    (w) => w.status === 'HEALTHY' && w.services.includes(`${namespace}/${name}`),
  );
  const retry = retryPolicy(policy.retries);
  const serviceCluster: ProtoObject = {
    '@type': TYPE_URL.cluster,
    name: clusterName,
    type: 'EDS',
    eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' }, service_name: clusterName },
    connect_timeout: duration(MESH_CONNECT_TIMEOUT_MS),
    lb_policy: 'LEAST_REQUEST',
    common_lb_config: {},
    circuit_breakers: defaultCircuitBreakers(),
    typed_extension_protocol_options: httpProtocolOptions(policy.connectionPool),
    ...(hbone ? { transport_socket_matches: hboneOrPlaintextSocketMatches() } : {}),
  };
  return {
    [TYPE_URL.cluster]: [
      serviceCluster,
      ...(hbone ? [connectOriginateCluster(TRUST_DOMAIN, policy.hboneIdleTimeoutMs)] : []),
    ],
    [TYPE_URL.endpoint]: [
      {
        '@type': TYPE_URL.endpoint,
        cluster_name: clusterName,
        endpoints: [{ lb_endpoints: backing.map((w) => lbEndpoint(w, targetPort, hbone)) }],
      },
    ],
    [TYPE_URL.listener]: [gatewayListener(node, routeName), ...(hbone ? [connectOriginateListener()] : [])],
    [TYPE_URL.route]: [
      {
        '@type': TYPE_URL.route,
        name: routeName,
        validate_clusters: { value: false },
        virtual_hosts: [
          {
            name: '*:80',
            domains: ['*'],
            routes: [
              {
                name: `${name}.${namespace}`,
                match: { prefix: '/' },
                route: {
                  cluster: clusterName,
                  timeout: duration(0),
                  max_grpc_timeout: duration(0),
                  ...(retry ? { retry_policy: retry } : {}),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}
