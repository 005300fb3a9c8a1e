import type { DiscoverySnapshot } from '../discovery/index.ts';
import { accessLogConfig } from './access-log.ts';
import { destinationResources, outboundClusterName } from './destination-cluster.ts';
import { TYPE_URL } from './envoy-protos.ts';
import { gatewayRoutesFor } from './gateway-virtual-hosts.ts';
import { connectOriginateCluster, connectOriginateListener } from './istio-clusters.ts';
import { EMPTY_NETWORKING } from './networking/index.ts';
import type { NetworkingSnapshot } from './networking/index.ts';
import type { ProxyNode } from './proxy-node.ts';
import { duration, extension } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';
import { retryPolicy } from './retry-policy.ts';
import { routePolicyOf } from './route-policy.ts';
import type { RoutePolicy } from './route-policy.ts';

export const TRUST_DOMAIN = 'cluster.local';
/** The Gateway's server port on the pod (the Service's port 80 targets it). */
export const GATEWAY_LISTENER_PORT = 8080;
export { outboundClusterName };

/** istiod sends HBONE unless the proxy's metadata says DISABLE_HBONE_SEND (pilot/pkg/model/context.go). */
export const sendsHbone = (node: ProxyNode): boolean => node.metadata['DISABLE_HBONE_SEND'] !== 'true';

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

/** The gateway's one route of old: every host, prefix `/`, to the destination in its node metadata. */
function metadataVirtualHost(policy: RoutePolicy): ProtoObject {
  const { namespace, name } = policy.destination;
  const retry = retryPolicy(policy.retries);
  return {
    name: '*:80',
    domains: ['*'],
    routes: [
      {
        name: `${name}.${namespace}`,
        match: { prefix: '/' },
        route: {
          cluster: outboundClusterName(policy.destination),
          timeout: duration(0),
          max_grpc_timeout: duration(0),
          ...(retry ? { retry_policy: retry } : {}),
        },
      },
    ],
  };
}

/**
 * Everything a router (ingress gateway) proxy gets: its listener; its route, whose virtual hosts are
 * those of the VirtualServices bound to Gateways selecting it (gateway-virtual-hosts.ts), then `*` to
 * the destination in its node metadata (route-policy.ts) unless a VirtualService claims `*` itself;
 * each destination's EDS cluster and endpoints; and (with HBONE send) connect_originate.
 * ignore_port_in_host_matching as istiod sets it on gateway routes (gateway.go
 * buildGatewayHTTPRouteConfig): `Host: name:80` matches `name`.
 */
export function routerResources(
  node: ProxyNode,
  snapshot: DiscoverySnapshot,
  networking: NetworkingSnapshot = EMPTY_NETWORKING,
): ProxyResources {
  const policy = routePolicyOf(node.metadata);
  const hbone = sendsHbone(node);
  const routeName = `http.${String(GATEWAY_LISTENER_PORT)}`;
  const bound = gatewayRoutesFor(node, snapshot, networking, GATEWAY_LISTENER_PORT);
  const claimsAll = bound.virtualHosts.some((v) => (v['domains'] as string[]).includes('*'));
  // The metadata's destination carries its DestinationRule's connection pool; the others none.
  const built = new Map<string, ReturnType<typeof destinationResources>>();
  for (const [destination, connectionPool] of [
    [policy.destination, policy.connectionPool] as const,
    ...bound.destinations.map((d) => [d, {}] as const),
  ]) {
    const name = outboundClusterName(destination);
    if (!built.has(name))
      built.set(name, destinationResources({ destination, snapshot, hbone, connectionPool }));
  }
  return {
    [TYPE_URL.cluster]: [
      ...[...built.values()].map((b) => b.cluster),
      ...(hbone ? [connectOriginateCluster(TRUST_DOMAIN, policy.hboneIdleTimeoutMs)] : []),
    ],
    [TYPE_URL.endpoint]: [...built.values()].map((b) => b.loadAssignment),
    [TYPE_URL.listener]: [gatewayListener(node, routeName), ...(hbone ? [connectOriginateListener()] : [])],
    [TYPE_URL.route]: [
      {
        '@type': TYPE_URL.route,
        name: routeName,
        validate_clusters: { value: false },
        ignore_port_in_host_matching: true,
        virtual_hosts: [...bound.virtualHosts, ...(claimsAll ? [] : [metadataVirtualHost(policy)])],
      },
    ],
  };
}
