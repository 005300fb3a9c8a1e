import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { failCall } from './ads-server.ts';
import type { AdsServer } from './ads-server.ts';
import { handleDeltaStream, sendUpdates } from './delta-ads-stream.ts';
import type { DeltaAdsState, DeltaRequest } from './delta-ads-stream.ts';
import { adsService } from './envoy-protos.ts';
import { bindGrpcServer, closeGrpcServer } from './grpc-server-lifecycle.ts';
import type { DeltaAdsServerOptions } from './delta-ads-stream.ts';
export type { DeltaAdsServerOptions } from './delta-ads-stream.ts';

/** The same handle as the Envoy ADS server's: its address is XDS_ADDRESS's host:port (https://). */
export type DeltaAdsServer = AdsServer;

/**
 * Delta ADS (envoy.service.discovery.v3 DeltaAggregatedResources) for istio/ztunnel, as istiod serves
 * it (istio/istio pilot/pkg/xds/delta.go at 86c9f01f): the caller authenticates with a bearer token
 * (76-83: UNAUTHENTICATED otherwise), its first request names its node (211-215), and each type it
 * subscribes to, wildcard only, is answered at once with every resource (even none: ztunnel is not
 * Ready until each type it watches got a response, src/xds/client.rs 665-676), less what it already
 * holds by `initial_resource_versions` on a reconnect, plus as `removed_resources` what it holds
 * that is gone (pilot/pkg/xds/workload.go 72-78, appendAddress 96-103). Afterwards update() sends
 * only what changed and what was removed. A request carrying error_detail is a NACK (recorded, not
 * re-sent: delta.go 365-374), one with an older nonce is stale (413-418), one with the last nonce
 * an ACK.
 */
export async function startDeltaAdsServer(options: DeltaAdsServerOptions): Promise<DeltaAdsServer> {
  const state: DeltaAdsState = { options, streams: new Set(), acked: new Map(), nacks: [], nonce: 0 };
  const server = createDeltaServer(state);
  const credentials = ServerCredentials.createSsl(
    null,
    [{ private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) }],
    false,
  );
  const port = await bindGrpcServer(server, { host: options.host, port: options.port, credentials });
  return {
    address: `${options.host}:${String(port)}`,
    update() {
      sendUpdates(state);
    },
    acked: (node, typeUrl) => state.acked.get(`${node}\u0000${typeUrl}`),
    nacks: () => state.nacks,
    proxies: () => [...state.streams].flatMap((s) => (s.node ? [s.node.id] : [])),
    close: () => closeGrpcServer(server, state.streams),
  };
}

/** The gRPC server: delta ADS, and the other services that share its port. */
function createDeltaServer(state: DeltaAdsState): Server {
  const server = new Server();
  server.addService(adsService(), {
    StreamAggregatedResources: (call: ServerDuplexStream<unknown, unknown>) => {
      failCall(call, status.UNIMPLEMENTED, 'this port serves delta xDS to ztunnel; Envoy has its own');
    },
    DeltaAggregatedResources: (call: ServerDuplexStream<DeltaRequest, unknown>) => {
      handleDeltaStream(state, call);
    },
  });
  for (const service of state.options.services ?? [])
    server.addService(service.definition, service.implementation);
  return server;
}
