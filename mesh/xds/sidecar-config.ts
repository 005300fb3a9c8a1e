import { accessLogConfig } from './access-log.ts';
import { TYPE_URL } from './envoy-protos.ts';
import { MESH_CONNECT_TIMEOUT_MS, defaultCircuitBreakers, httpProtocolOptions } from './istio-clusters.ts';
import type { ProxyNode } from './proxy-node.ts';
import { duration, extension } from './proto-values.ts';
import type { ProxyResources } from './router-config.ts';

/**
 * Where the sidecar's app listens, from the proxy's metadata (pilot-agent's ISTIO_META_ variables):
 * HARNESS_APP_PORT (the container port, which the inbound listener also serves on the pod address)
 * and HARNESS_APP_ADDRESS (the app's "localhost": a private address on the local backend).
 */
export function inboundTarget(node: ProxyNode): { port: number; appAddress: string } {
  const port = Number(node.metadata['HARNESS_APP_PORT'] ?? '8080');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(
      `HARNESS_APP_PORT must be a port number, got ${JSON.stringify(node.metadata['HARNESS_APP_PORT'])}`,
    );
  return { port, appAddress: node.metadata['HARNESS_APP_ADDRESS'] ?? '127.0.0.1' };
}

/**
 * A sidecar's inbound path as istiod builds it (listener_builder.go buildInboundHTTPListener): a
 * listener with traffic_direction INBOUND (what pilot-agent's `drain_listeners?inboundonly` drains),
 * an HTTP connection manager with an inline route and no retries, and the `inbound|port||` cluster
 * to the app. Without iptables it listens on the pod address and port itself.
 */
export function sidecarResources(node: ProxyNode): ProxyResources {
  const { port, appAddress } = inboundTarget(node);
  const cluster = `inbound|${String(port)}||`;
  return {
    [TYPE_URL.cluster]: [
      {
        '@type': TYPE_URL.cluster,
        name: cluster,
        type: 'STATIC',
        connect_timeout: duration(MESH_CONNECT_TIMEOUT_MS),
        circuit_breakers: defaultCircuitBreakers(),
        typed_extension_protocol_options: httpProtocolOptions({}),
        load_assignment: {
          cluster_name: cluster,
          endpoints: [
            {
              lb_endpoints: [
                { endpoint: { address: { socket_address: { address: appAddress, port_value: port } } } },
              ],
            },
          ],
        },
      },
    ],
    [TYPE_URL.endpoint]: [],
    [TYPE_URL.listener]: [
      {
        '@type': TYPE_URL.listener,
        name: 'virtualInbound',
        address: { socket_address: { address: node.ip, port_value: port } },
        traffic_direction: 'INBOUND',
        filter_chains: [
          {
            filters: [
              extension(
                'envoy.filters.network.http_connection_manager',
                'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                {
                  stat_prefix: `inbound_0.0.0.0_${String(port)}`,
                  codec_type: 'AUTO',
                  stream_idle_timeout: duration(0),
                  normalize_path: { value: true },
                  access_log: [accessLogConfig()],
                  route_config: {
                    name: 'inbound|http|' + String(port),
                    validate_clusters: { value: false },
                    virtual_hosts: [
                      {
                        name: `inbound|http|${String(port)}`,
                        domains: ['*'],
                        routes: [
                          {
                            name: 'default',
                            match: { prefix: '/' },
                            route: { cluster, timeout: duration(0), max_grpc_timeout: duration(0) },
                          },
                        ],
                      },
                    ],
                  },
                  http_filters: [
                    extension('envoy.filters.http.router', 'envoy.extensions.filters.http.router.v3.Router'),
                  ],
                },
              ),
            ],
          },
        ],
      },
    ],
    [TYPE_URL.route]: [],
  };
}
