import { createHash, X509Certificate } from 'node:crypto';
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { adsService } from './envoy-protos.ts';
import { bindGrpcServer, closeGrpcServer } from './grpc-server-lifecycle.ts';
import { parseProxyNode } from './proxy-node.ts';
import type { ProxyNode } from './proxy-node.ts';
import type { ProxyResources } from './router-config.ts';

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
  node?: { id?: string; metadata?: unknown };
  resource_names?: string[];
  type_url?: string;
  response_nonce?: string;
  error_detail?: { message?: string };
}

export interface AdsServerOptions {
  host: string;
  port: number;
  /** Mutual TLS (istiod's 15012): the server's certificate and the CA a proxy's certificate must chain to. */
  tls?: { key: string; cert: string; ca: string };
  /** Why this proxy may not have configuration (its certificate does not match its node), or undefined. */
  authorize?: (node: ProxyNode, peer: X509Certificate | undefined) => string | undefined;
  /** The proxy's whole configuration now, by type URL. */
  configFor: (node: ProxyNode) => ProxyResources;
  onNack?: (nack: XdsNack) => void;
  onRefused?: (nodeId: string, reason: string) => void;
}

export interface AdsServer {
  /** host:port the proxies dial. */
  address: string;
  /** Recomputes every proxy's configuration and sends each type that changed (a push). */
  update(): void;
  /** The last version each proxy (node id) ACKed per type. */
  acked(node: string, typeUrl: string): string | undefined;
  nacks(): readonly XdsNack[];
  /** Node ids with a stream open now. */
  proxies(): string[];
  close(): Promise<void>;
}

interface TypeState {
  /** Names asked for (EDS, RDS); empty: everything (LDS, CDS wildcard). */
  names: string[];
  nonce: string;
  version: string;
}

interface Stream {
  call: ServerDuplexStream<DiscoveryRequest, unknown>;
  node?: ProxyNode;
  types: Map<string, TypeState>;
}

/**
 * Ends a server stream with a gRPC status its client receives. grpc-js sends the status of an
 * 'error' emitted on the call (grpc/grpc-node#1439, the maintainer's answer); `call.destroy(err)`
 * tears down our side without one, and the client (Envoy) waits on a stream that never answers.
 */
export function failCall(call: NodeJS.EventEmitter, code: status, message: string): void {
  call.emit('error', Object.assign(new Error(message), { code }));
}

/**
 * A stream's end, however it comes (the proxy half-closes, or goes away, which is an error on our
 * side): forget it, and answer a half-close with ours. Both ADS servers, for their streams.
 */
export function forgetOnEnd<S>(
  streams: Set<S>,
  stream: S,
  call: { on: NodeJS.EventEmitter['on']; end(): void },
): void {
  const forget = (): void => {
    streams.delete(stream);
  };
  call.on('end', () => {
    forget();
    call.end();
  });
  call.on('error', forget);
  call.on('close', forget);
}

const hashOf = (resources: unknown): string =>
  createHash('sha256').update(JSON.stringify(resources)).digest('hex').slice(0, 12);

function peerCertificate(call: ServerDuplexStream<DiscoveryRequest, unknown>): X509Certificate | undefined {
  // Without a client certificate grpc-js gives an empty object (or nothing) here.
  const cert = (call.getAuthContext() as { sslPeerCertificate?: { raw?: Buffer } } | null)
    ?.sslPeerCertificate;
  const raw = cert?.raw;
  return raw ? new X509Certificate(raw) : undefined;
}

/**
 * An aggregated discovery service, state of the world over one gRPC stream per proxy
 * (envoy/service/discovery/v3/ads.proto and the xDS protocol's ACK/NACK by response_nonce). Each
 * proxy gets its own configuration (configFor its node). A request without a nonce subscribes and
 * gets the type's current resources; one with the last nonce and no error_detail ACKs (and, if it
 * names other resources, gets them); one with error_detail NACKs (recorded with the proxy's reason,
 * not re-sent: the proxy keeps its last good version); one with an older nonce is stale. A type is
 * re-sent on update() only when its content changed; its version is the content's hash.
 */
export async function startAdsServer(options: AdsServerOptions): Promise<AdsServer> {
  const streams = new Set<Stream>();
  const acked = new Map<string, string>();
  const nacks: XdsNack[] = [];
  let nonce = 0;

  const resourcesOf = (stream: Stream, typeUrl: string, names: string[]): unknown[] => {
    if (!stream.node) return [];
    const all = options.configFor(stream.node)[typeUrl] ?? [];
    if (names.length === 0) return all;
    const wanted = new Set(names);
    return all.filter((r) => wanted.has(String(r['name'] ?? r['cluster_name'])));
  };
  const send = (stream: Stream, typeUrl: string, names: string[], force: boolean): void => {
    let resources: unknown[];
    try {
      resources = resourcesOf(stream, typeUrl, names);
    } catch (err) {
      failCall(stream.call, status.INVALID_ARGUMENT, (err as Error).message);
      return;
    }
    const version = hashOf(resources);
    const last = stream.types.get(typeUrl);
    if (!force && last?.version === version) return;
    const sent = { names, nonce: String(++nonce), version };
    stream.types.set(typeUrl, sent);
    stream.call.write({ version_info: version, type_url: typeUrl, nonce: sent.nonce, resources });
  };
  /** Refuses a stream before it has a node: `nodeId` is what the proxy claimed to be. */
  const refuse = (stream: Stream, nodeId: string, code: status, reason: string): void => {
    options.onRefused?.(nodeId, reason);
    failCall(stream.call, code, reason);
  };
  const onRequest = (stream: Stream, req: DiscoveryRequest): void => {
    if (stream.call.writableEnded) return; // refused or failed: its status is on its way
    if (!stream.node) {
      const node = parseProxyNode(req.node);
      if (typeof node === 'string') {
        refuse(stream, req.node?.id ?? '', status.INVALID_ARGUMENT, node);
        return;
      }
      const why = options.authorize?.(node, peerCertificate(stream.call));
      if (why !== undefined) {
        refuse(stream, node.id, status.PERMISSION_DENIED, why);
        return;
      }
      stream.node = node;
    }
    const typeUrl = req.type_url ?? '';
    const names = [...(req.resource_names ?? [])].sort();
    const last = stream.types.get(typeUrl);
    if (!req.response_nonce || !last) {
      send(stream, typeUrl, names, true);
      return;
    }
    if (req.response_nonce !== last.nonce) return; // stale: a newer response is on its way
    if (req.error_detail) {
      const nack = {
        node: stream.node.id,
        typeUrl,
        version: last.version,
        message: req.error_detail.message ?? '',
      };
      nacks.push(nack);
      options.onNack?.(nack);
      return;
    }
    acked.set(`${stream.node.id}\u0000${typeUrl}`, last.version);
    if (names.join('\u0000') !== last.names.join('\u0000')) send(stream, typeUrl, names, true);
  };

  const server = new Server();
  server.addService(adsService(), {
    StreamAggregatedResources: (call: ServerDuplexStream<DiscoveryRequest, unknown>) => {
      const stream: Stream = { call, types: new Map() };
      streams.add(stream);
      call.on('data', (req: DiscoveryRequest) => {
        onRequest(stream, req);
      });
      forgetOnEnd(streams, stream, call);
    },
    DeltaAggregatedResources: (call: ServerDuplexStream<unknown, unknown>) => {
      failCall(call, status.UNIMPLEMENTED, 'delta xDS is not served: use state of the world (GRPC)');
    },
  });
  const credentials = options.tls
    ? ServerCredentials.createSsl(
        Buffer.from(options.tls.ca),
        [{ private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) }],
        true,
      )
    : ServerCredentials.createInsecure();
  const port = await bindGrpcServer(server, { host: options.host, port: options.port, credentials });
  return {
    address: `${options.host}:${String(port)}`,
    update() {
      for (const stream of streams)
        for (const [typeUrl, state] of stream.types) send(stream, typeUrl, state.names, false);
    },
    acked: (node, typeUrl) => acked.get(`${node}\u0000${typeUrl}`),
    nacks: () => nacks,
    proxies: () => [...streams].flatMap((s) => (s.node ? [s.node.id] : [])),
    close: () => closeGrpcServer(server, streams),
  };
}
