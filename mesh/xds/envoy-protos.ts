import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition } from '@grpc/grpc-js';
import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/**
 * Envoy's API as published, from a registry package: @grpc/grpc-js-xds ships envoyproxy/data-plane-api
 * (and xds, googleapis, protoc-gen-validate) under deps/, which proto-loader reads. No hand-written copy.
 */
const DEPS = join(dirname(fileURLToPath(import.meta.resolve('@grpc/grpc-js-xds/package.json'))), 'deps');

/** The messages our control plane sends Envoy, by the files that define them. */
const PROTOS = [
  'envoy/service/discovery/v3/ads.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  // Inside typed_config (google.protobuf.Any): every message our resources pack must be loaded.
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  'envoy/extensions/filters/listener/original_dst/v3/original_dst.proto',
  'envoy/extensions/transport_sockets/internal_upstream/v3/internal_upstream.proto',
  'envoy/extensions/transport_sockets/raw_buffer/v3/raw_buffer.proto',
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto',
  'envoy/extensions/access_loggers/file/v3/file.proto',
  // pilot-agent's secret service to its own Envoy.
  'envoy/service/secret/v3/sds.proto',
];

export const TYPE_URL = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
} as const;

let loaded: GrpcObject | undefined;

/** Envoy's protos as a gRPC package (loaded once, ~150 ms). */
export function envoyApi(): GrpcObject {
  loaded ??= loadPackageDefinition(
    loadSync(PROTOS, {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: false,
      oneofs: true,
      includeDirs: ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(DEPS, d)),
    }),
  );
  return loaded;
}

function serviceAt(path: string): ServiceClientConstructor['service'] {
  let at: unknown = envoyApi();
  for (const key of path.split('.')) at = (at as Record<string, unknown>)[key];
  return (at as ServiceClientConstructor).service;
}

/** The ADS service (envoy.service.discovery.v3.AggregatedDiscoveryService). */
export const adsService = (): ServiceClientConstructor['service'] =>
  serviceAt('envoy.service.discovery.v3.AggregatedDiscoveryService');

/** The secret discovery service (envoy.service.secret.v3.SecretDiscoveryService). */
export const sdsService = (): ServiceClientConstructor['service'] =>
  serviceAt('envoy.service.secret.v3.SecretDiscoveryService');
