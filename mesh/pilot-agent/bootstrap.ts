import { isIP } from 'node:net';
import { SDS_CLUSTER, SDS_DEFAULT, SDS_ROOT, sdsSecret } from '../xds/istio-clusters.ts';

/**
 * Envoy's bootstrap as pilot-agent writes it (istio tools/packaging/common/envoy_bootstrap.json,
 * reduced to what these proxies use), in proto3 JSON: the node (id and metadata), admin on a unix
 * socket in the pod, the internal-listener extension HBONE needs, ADS over the `xds-grpc` cluster,
 * secrets over `sds-grpc` from pilot-agent's own socket, and the :15090 Prometheus listener.
 *
 * One difference from Istio, written down: Istio's Envoy reaches istiod through pilot-agent's xDS
 * proxy (a unix socket; the agent holds the mTLS connection). Here Envoy dials the control plane
 * itself over mTLS with the workload certificate from SDS: the same authentication at the xDS port,
 * one proxy process fewer.
 */
export interface BootstrapOptions {
  nodeId: string;
  /** The node's `cluster` (Istio: `<app>.<namespace>`). */
  cluster: string;
  metadata: Record<string, string>;
  /** The control plane's mTLS xDS address, host:port. */
  xdsAddress: string;
  /** The name its serving certificate carries (Istio: istiod.istio-system.svc). */
  xdsServerName: string;
  adminSocket: string;
  sdsSocket: string;
  /** The pod's address: the Prometheus listener binds it. */
  podIp: string;
  prometheusPort: number;
}

type Address = { socket_address: { address: string; port_value: number } } | { pipe: { path: string } };

/**
 * A static cluster of one endpoint (an address, or a unix socket as a `pipe`): the xDS and SDS
 * clusters speak gRPC, so HTTP/2; the Prometheus listener's admin cluster HTTP/1.1.
 */
export function staticCluster(options: {
  name: string;
  address: Address;
  http2: boolean;
  /** By name (DNS) rather than an IP: kind's istiod.istio-system.svc. */
  dns?: boolean;
}): Record<string, unknown> {
  return {
    name: options.name,
    type: options.dns ? 'STRICT_DNS' : 'STATIC',
    connect_timeout: '1s',
    load_assignment: {
      cluster_name: options.name,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: options.address } }] }],
    },
    ...(options.http2
      ? {
          typed_extension_protocol_options: {
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
              '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
              explicit_http_config: { http2_protocol_options: {} },
            },
          },
        }
      : {}),
  };
}

/** Istio's dynamic_resources: every type over ADS on the `xds-grpc` cluster (envoy_bootstrap.json). */
export function adsDynamicResources(): Record<string, unknown> {
  const ads = { ads: {}, resource_api_version: 'V3' };
  return {
    ads_config: {
      api_type: 'GRPC',
      transport_api_version: 'V3',
      grpc_services: [{ envoy_grpc: { cluster_name: 'xds-grpc' } }],
      set_node_on_first_message_only: true,
    },
    cds_config: ads,
    lds_config: ads,
  };
}

export function buildBootstrap(o: BootstrapOptions): Record<string, unknown> {
  const [host = '', port = ''] = o.xdsAddress.split(/:(?=\d+$)/);
  return {
    node: { id: o.nodeId, cluster: o.cluster, metadata: o.metadata },
    admin: { address: { pipe: { path: o.adminSocket } } },
    // Istio's stats tags (envoy_bootstrap.json stats_config, reduced): without cluster_name's regex
    // Envoy's default extractor cuts `outbound|8000||httpbin.default.svc.cluster.local` at its dots.
    stats_config: {
      use_all_default_tags: false,
      stats_tags: [
        { tag_name: 'cluster_name', regex: '^cluster\\.((.+?(\\..+?\\.svc\\.cluster\\.local)?)\\.)' },
        { tag_name: 'tcp_prefix', regex: '^tcp\\.((.*?)\\.)\\w+?$' },
        { tag_name: 'response_code', regex: '_rq(_(\\d{3}))$' },
        { tag_name: 'response_code_class', regex: '_rq(_(\\dxx))$' },
        {
          tag_name: 'listener_address',
          regex: '^listener\\.(((?:[_.[:digit:]]*|[_\\[\\]aAbBcCdDeEfF[:digit:]]*))\\.)',
        },
      ],
    },
    bootstrap_extensions: [
      {
        name: 'envoy.bootstrap.internal_listener',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.bootstrap.internal_listener.v3.InternalListener',
          buffer_size_kb: 64,
        },
      },
    ],
    // Istio's bootstrap: no global connection limit warning (overload_manager in envoy_bootstrap.json).
    overload_manager: {
      resource_monitors: [
        {
          name: 'envoy.resource_monitors.global_downstream_max_connections',
          typed_config: {
            '@type':
              'type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig',
            max_active_downstream_connections: 2147483647,
          },
        },
      ],
    },
    dynamic_resources: adsDynamicResources(),
    static_resources: {
      clusters: [
        {
          ...staticCluster({
            name: 'xds-grpc',
            address: { socket_address: { address: host, port_value: Number(port) } },
            http2: true,
            dns: isIP(host) === 0,
          }),
          transport_socket: {
            name: 'envoy.transport_sockets.tls',
            typed_config: {
              '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
              sni: o.xdsServerName,
              common_tls_context: {
                alpn_protocols: ['h2'],
                tls_certificate_sds_secret_configs: [sdsSecret(SDS_DEFAULT)],
                combined_validation_context: {
                  default_validation_context: {
                    match_typed_subject_alt_names: [{ san_type: 'DNS', matcher: { exact: o.xdsServerName } }],
                  },
                  validation_context_sds_secret_config: sdsSecret(SDS_ROOT),
                },
              },
            },
          },
        },
        staticCluster({ name: SDS_CLUSTER, address: { pipe: { path: o.sdsSocket } }, http2: true }),
        staticCluster({ name: 'prometheus_stats', address: { pipe: { path: o.adminSocket } }, http2: false }),
      ],
      listeners: [
        {
          name: `0.0.0.0_${String(o.prometheusPort)}`,
          address: { socket_address: { address: o.podIp, port_value: o.prometheusPort } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type':
                      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                    stat_prefix: 'stats',
                    route_config: {
                      virtual_hosts: [
                        {
                          name: 'backend',
                          domains: ['*'],
                          routes: [
                            {
                              match: { prefix: '/stats/prometheus' },
                              route: { cluster: 'prometheus_stats' },
                            },
                          ],
                        },
                      ],
                    },
                    http_filters: [
                      {
                        name: 'envoy.filters.http.router',
                        typed_config: {
                          '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
                        },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    },
  };
}

/**
 * Envoy buffers its file access log and writes it when the buffer passes 64 KiB or this timer fires
 * (--file-flush-interval-msec, which pilot-agent sets to 1000).
 */
export const ISTIO_FILE_FLUSH_INTERVAL_MS = 1000;

/** pilot-agent's Envoy command line (istio pkg/envoy/proxy.go (*envoy).args). */
export function envoyArgs(o: {
  configPath: string;
  drainDurationS: number;
  concurrency: number;
  logLevel: string;
}): string[] {
  return [
    '-c',
    o.configPath,
    '--drain-time-s',
    String(o.drainDurationS),
    '--drain-strategy',
    'immediate',
    '--local-address-ip-version',
    'v4',
    '--file-flush-interval-msec',
    String(ISTIO_FILE_FLUSH_INTERVAL_MS),
    '--disable-hot-restart',
    '--allow-unknown-static-fields',
    '-l',
    o.logLevel,
    '--component-log-level',
    'misc:error',
    ...(o.concurrency > 0 ? ['--concurrency', String(o.concurrency)] : []),
  ];
}
