import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { adsService } from './envoy-protos.ts';

/** One xDS resource as sent: an Envoy message with its `@type` (packed into a google.protobuf.Any). */
export type XdsMessage = Record<string, unknown> & { '@type': string };

/** A NACK: the proxy refused a version, with its own reason (error_detail). */
export interface XdsNack {
  node: string;
  typeUrl: string;
  /** The version refused (the nonce it answers names it). */
  version: string;
  message: string;
}

interface DiscoveryRequest {
  version_info?: string;
  node?: { id?: string };
  type_url?: string;
  response_nonce?: string;
  error_detail?: { message?: string };
}

export interface AdsServer {
  /** host:port the proxies dial. */
  address: string;
  /** A new version of one type's resources, sent to every stream subscribed to it. */
  push(typeUrl: string, resources: XdsMessage[]): void;
  /** The last version each proxy (node id) ACKed per type. */
  acked(node: string, typeUrl: string): string | undefined;
  nacks(): readonly XdsNack[];
  close(): Promise<void>;
}

interface Stream {
  call: ServerDuplexStream<DiscoveryRequest, unknown>;
  node: string;
  /** Per type: the nonce and version of the last response on this stream. */
  sent: Map<string, { nonce: string; version: string }>;
}

/**
 * An aggregated discovery service, state of the world over one gRPC stream per proxy
 * (envoy/service/discovery/v3/ads.proto; the xDS protocol's ACK/NACK by response_nonce): a request
 * without a nonce subscribes and gets the type's current version; one with the last nonce and no
 * error_detail ACKs it; one with error_detail NACKs it (recorded with the proxy's reason, not
 * re-sent: the proxy keeps its last good version); one with an older nonce is stale and ignored.
 */
export async function startAdsServer(options: {
  host: string;
  port: number;
  initial?: ReadonlyMap<string, XdsMessage[]>;
  onNack?: (nack: XdsNack) => void;
}): Promise<AdsServer> {
  const current = new Map<string, { version: number; resources: XdsMessage[] }>();
  for (const [typeUrl, resources] of options.initial ?? []) current.set(typeUrl, { version: 1, resources });
  const streams = new Set<Stream>();
  const acked = new Map<string, string>();
  const nacks: XdsNack[] = [];
  let nonce = 0;

  const send = (stream: Stream, typeUrl: string): void => {
    const state = current.get(typeUrl) ?? { version: 0, resources: [] };
    const sent = { nonce: String(++nonce), version: String(state.version) };
    stream.sent.set(typeUrl, sent);
    stream.call.write({
      version_info: sent.version,
      type_url: typeUrl,
      nonce: sent.nonce,
      resources: state.resources,
    });
  };
  const onRequest = (stream: Stream, req: DiscoveryRequest): void => {
    const typeUrl = req.type_url ?? '';
    stream.node = req.node?.id ?? stream.node;
    const last = stream.sent.get(typeUrl);
    if (!req.response_nonce) {
      send(stream, typeUrl);
      return;
    }
    if (!last || req.response_nonce !== last.nonce) return; // stale: a newer response is on its way
    if (req.error_detail) {
      const nack = {
        node: stream.node,
        typeUrl,
        version: last.version,
        message: req.error_detail.message ?? '',
      };
      nacks.push(nack);
      options.onNack?.(nack);
      return;
    }
    acked.set(`${stream.node}\u0000${typeUrl}`, last.version);
  };

  const server = new Server();
  server.addService(adsService(), {
    StreamAggregatedResources: (call: ServerDuplexStream<DiscoveryRequest, unknown>) => {
      const stream: Stream = { call, node: '', sent: new Map() };
      streams.add(stream);
      call.on('data', (req: DiscoveryRequest) => {
        onRequest(stream, req);
      });
      const forget = (): void => {
        streams.delete(stream);
      };
      call.on('end', () => {
        forget();
        call.end();
      });
      // A proxy that goes away ends its stream with an error on our side: nothing to do but forget it.
      call.on('error', forget);
    },
    DeltaAggregatedResources: (call: ServerDuplexStream<unknown, unknown>) => {
      call.end(); // state of the world only
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${options.host}:${String(options.port)}`,
      ServerCredentials.createInsecure(),
      (err, bound) => {
        if (err) reject(err);
        else resolve(bound);
      },
    );
  });
  return {
    address: `${options.host}:${String(port)}`,
    push(typeUrl, resources) {
      const version = (current.get(typeUrl)?.version ?? 0) + 1;
      current.set(typeUrl, { version, resources });
      for (const stream of streams) if (stream.sent.has(typeUrl)) send(stream, typeUrl);
    },
    acked: (node, typeUrl) => acked.get(`${node}\u0000${typeUrl}`),
    nacks: () => nacks,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.call.end();
        server.tryShutdown(() => {
          resolve();
        });
      }),
  };
}
