import { duration, extension, struct, typed, wrapped } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';

/**
 * Cluster pieces istiod gives every proxy (sidecar and gateway), with the upstream file each is read
 * from (istio/istio 1.28; see ../shared/research/envoy-gateway.md).
 */

/** meshConfig.connectTimeout's default (pkg/config/mesh/mesh.go DefaultMeshConfig). */
export const MESH_CONNECT_TIMEOUT_MS = 10_000;
/** ztunnel's inbound HBONE port (pilot/pkg/model/listener.go HBoneInboundListenPort). */
export const HBONE_PORT = 15008;
/** pilot/pkg/networking/core/waypoint.go ConnectOriginate. */
export const CONNECT_ORIGINATE = 'connect_originate';
/** pilot/pkg/networking/util/util.go OriginalDstMetadataKey. */
export const ORIGINAL_DST_METADATA = 'envoy.filters.listener.original_dst';
/** pkg/model/authentication.go SDSDefaultResourceName / SDSRootResourceName / SDSClusterName. */
export const SDS_DEFAULT = 'default';
export const SDS_ROOT = 'ROOTCA';
export const SDS_CLUSTER = 'sds-grpc';

/** cluster_traffic_policy.go getDefaultCircuitBreakerThresholds: everything math.MaxUint32. */
export function defaultCircuitBreakers(): ProtoObject {
  const max = wrapped(4294967295);
  return {
    thresholds: [
      {
        max_connections: max,
        max_pending_requests: max,
        max_requests: max,
        max_retries: max,
        track_remaining: true,
      },
    ],
  };
}

/**
 * An SDS secret reference: pilot-agent serves `default` and `ROOTCA` on the sds-grpc cluster. Plain
 * values only, so the bootstrap (proto3 JSON) and xDS (proto-loader objects) share it.
 */
export function sdsSecret(name: string): ProtoObject {
  return {
    name,
    sds_config: {
      api_config_source: {
        api_type: 'GRPC',
        transport_api_version: 'V3',
        grpc_services: [{ envoy_grpc: { cluster_name: SDS_CLUSTER } }],
        set_node_on_first_message_only: true,
      },
      resource_api_version: 'V3',
    },
  };
}

/**
 * The mesh mTLS client context (listener_waypoint.go buildCommonConnectTLSContext): the workload's
 * certificate and the mesh root from SDS, SAN prefix `spiffe://<trust domain>/`, TLS 1.3 only.
 */
export function meshTlsContext(trustDomain: string, alpn: string[]): ProtoObject {
  return {
    tls_params: { tls_minimum_protocol_version: 'TLSv1_3', tls_maximum_protocol_version: 'TLSv1_3' },
    alpn_protocols: alpn,
    tls_certificate_sds_secret_configs: [sdsSecret(SDS_DEFAULT)],
    combined_validation_context: {
      default_validation_context: {
        match_typed_subject_alt_names: [{ san_type: 'URI', matcher: { prefix: `spiffe://${trustDomain}/` } }],
      },
      validation_context_sds_secret_config: sdsSecret(SDS_ROOT),
    },
  };
}

const rawBuffer = (): ProtoObject =>
  extension(
    'envoy.transport_sockets.raw_buffer',
    'envoy.extensions.transport_sockets.raw_buffer.v3.RawBuffer',
  );

/**
 * cluster_tls.go hboneOrPlaintextSocket: endpoints marked tunnel=http go through the internal
 * upstream to connect_originate (util/internal_upstream.go FullMetadataPassthroughInternalUpstreamTransportSocket),
 * everything else is plain text.
 */
export function hboneOrPlaintextSocketMatches(): ProtoObject[] {
  return [
    {
      name: 'hbone',
      match: struct({ tunnel: 'http' }),
      transport_socket: extension(
        'envoy.transport_sockets.internal_upstream',
        'envoy.extensions.transport_sockets.internal_upstream.v3.InternalUpstreamTransport',
        {
          passthrough_metadata: [
            { kind: { host: {} }, name: ORIGINAL_DST_METADATA },
            { kind: { cluster: {} }, name: 'istio' },
            { kind: { host: {} }, name: 'istio' },
          ],
          transport_socket: rawBuffer(),
        },
      ),
    },
    { name: 'tlsMode-disabled', match: struct({}), transport_socket: rawBuffer() },
  ];
}

/** HTTP/1.1 upstream options with a DestinationRule's connection pool (applyConnectionPool). */
export function httpProtocolOptions(pool: {
  idleTimeoutMs?: number;
  maxRequestsPerConnection?: number;
  maxConnectionDurationMs?: number;
}): ProtoObject {
  const common: ProtoObject = {};
  if (pool.idleTimeoutMs !== undefined) common['idle_timeout'] = duration(pool.idleTimeoutMs);
  if (pool.maxConnectionDurationMs)
    common['max_connection_duration'] = duration(pool.maxConnectionDurationMs);
  if (pool.maxRequestsPerConnection)
    common['max_requests_per_connection'] = wrapped(pool.maxRequestsPerConnection);
  return {
    'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': typed(
      'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
      {
        ...(Object.keys(common).length ? { common_http_protocol_options: common } : {}),
        explicit_http_config: { http_protocol_options: {} },
      },
    ),
  };
}

/**
 * cluster_waypoint.go buildConnectOriginate: ORIGINAL_DST to <dst>:15008 (or the endpoint's
 * `waypoint` metadata address), HTTP/2 with CONNECT, mesh mTLS; 1.29's hboneIdleTimeout when set.
 */
export function connectOriginateCluster(trustDomain: string, hboneIdleTimeoutMs?: number): ProtoObject {
  return {
    '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
    name: CONNECT_ORIGINATE,
    type: 'ORIGINAL_DST',
    lb_policy: 'CLUSTER_PROVIDED',
    connect_timeout: duration(MESH_CONNECT_TIMEOUT_MS),
    cleanup_interval: duration(60_000),
    circuit_breakers: defaultCircuitBreakers(),
    original_dst_lb_config: {
      upstream_port_override: wrapped(HBONE_PORT),
      metadata_key: { key: ORIGINAL_DST_METADATA, path: [{ key: 'waypoint' }] },
    },
    typed_extension_protocol_options: {
      'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': typed(
        'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
        {
          ...(hboneIdleTimeoutMs
            ? { common_http_protocol_options: { idle_timeout: duration(hboneIdleTimeoutMs) } }
            : {}),
          explicit_http_config: { http2_protocol_options: { allow_connect: true } },
        },
      ),
    },
    transport_socket: extension('tls', 'envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext', {
      common_tls_context: meshTlsContext(trustDomain, ['h2']),
    }),
  };
}

/**
 * listener_waypoint.go buildConnectOriginateListener: the internal listener that restores the
 * endpoint's address and tunnels the connection as an HTTP/2 CONNECT to it (authority ip:port).
 */
export function connectOriginateListener(): ProtoObject {
  return {
    '@type': 'type.googleapis.com/envoy.config.listener.v3.Listener',
    name: CONNECT_ORIGINATE,
    use_original_dst: { value: false },
    internal_listener: {},
    listener_filters: [
      extension(ORIGINAL_DST_METADATA, 'envoy.extensions.filters.listener.original_dst.v3.OriginalDst'),
    ],
    filter_chains: [
      {
        filters: [
          extension(
            'envoy.filters.network.tcp_proxy',
            'envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
            {
              stat_prefix: CONNECT_ORIGINATE,
              cluster: CONNECT_ORIGINATE,
              tunneling_config: { hostname: '%DOWNSTREAM_LOCAL_ADDRESS%' },
              // accesslog.go hboneOriginationAccessLogFilter: only UF, whose details are lost otherwise.
              access_log: [
                {
                  ...extension(
                    'envoy.access_loggers.file',
                    'envoy.extensions.access_loggers.file.v3.FileAccessLog',
                    {
                      path: '/dev/stdout',
                      log_format: {
                        text_format_source: {
                          inline_string:
                            '[connect_originate] %START_TIME% %RESPONSE_FLAGS% "%UPSTREAM_TRANSPORT_FAILURE_REASON%" upstream=%UPSTREAM_HOST% authority=%DOWNSTREAM_LOCAL_ADDRESS%\n',
                        },
                      },
                    },
                  ),
                  filter: { response_flag_filter: { flags: ['UF'] } },
                },
              ],
            },
          ),
        ],
      },
    ],
  };
}
