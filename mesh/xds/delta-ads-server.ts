import { createHash } from 'node:crypto';
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { failCall, forgetOnEnd } from './ads-server.ts';
import type { AdsServer, XdsNack } from './ads-server.ts';
import { adsService } from './envoy-protos.ts';
import type { ResourceSet } from './workload-resources.ts';
import { authorizeZtunnel, parseZtunnelNode } from './ztunnel-node.ts';
import type { XdsCaller, ZtunnelNode } from './ztunnel-node.ts';

/** envoy.service.discovery.v3.DeltaDiscoveryRequest as proto-loader decodes it (keepCase). */
interface DeltaRequest {
  node?: { id?: string; metadata?: unknown };
  type_url?: string;
  resource_names_subscribe?: string[];
  resource_names_unsubscribe?: string[];
  initial_resource_versions?: Record<string, string>;
  response_nonce?: string;
  error_detail?: { message?: string };
}

export interface DeltaAdsServerOptions {
  host: string;
  port: number;
  /** The server's certificate (TLS without client certificates: the caller sends a bearer token). */
  tls: { key: string; cert: string };
  /** TokenReview of the bearer token: the caller, or why it is refused. */
  authenticate(token: string): Promise<XdsCaller | string>;
  /** A type's resources for this ztunnel now, by name; undefined for a type not served. */
  resourcesFor(node: ZtunnelNode, typeUrl: string): ResourceSet | undefined;
  onNack?: (nack: XdsNack) => void;
  onRefused?: (nodeId: string, reason: string) => void;
  /**
   * Other services on the same server and port, as istiod serves its CA beside discovery on 15012
   * (the gRPC CA, mesh/pki/certificate-service.ts: ztunnel's CA_ADDRESS is then its XDS_ADDRESS).
   */
  services?: readonly { definition: ServiceDefinition; implementation: UntypedServiceImplementation }[];
}

/** The same handle as the Envoy ADS server's: its address is XDS_ADDRESS's host:port (https://). */
export type DeltaAdsServer = AdsServer;

interface TypeState {
  /** What the client holds, as far as we told it: name -> version. */
  sent: Map<string, string>;
  nonce: string;
  version: string;
}

interface Stream {
  call: ServerDuplexStream<DeltaRequest, unknown>;
  caller?: XdsCaller;
  node?: ZtunnelNode;
  types: Map<string, TypeState>;
}

const versionOf = (set: ResourceSet): string =>
  createHash('sha256')
    .update([...set.values()].map((r) => `${r.name}\u0000${r.version}`).join('\n'))
    .digest('hex')
    .slice(0, 12);

/** A wildcard subscription, as envoy's xDS protocol defines it and ztunnel sends it (client.rs 381-394). */
const isWildcard = (req: DeltaRequest): boolean => {
  const sub = req.resource_names_subscribe ?? [];
  return (sub.length === 0 || sub.includes('*')) && !(req.resource_names_unsubscribe ?? []).includes('*');
};

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
  const streams = new Set<Stream>();
  const acked = new Map<string, string>();
  const nacks: XdsNack[] = [];
  let nonce = 0;

  const send = (
    stream: Stream,
    node: ZtunnelNode,
    typeUrl: string,
    initial?: Record<string, string>,
  ): void => {
    let current: ResourceSet | undefined;
    try {
      current = options.resourcesFor(node, typeUrl);
    } catch (err) {
      failCall(stream.call, status.INTERNAL, `cannot build ${typeUrl}: ${(err as Error).message}`);
      return;
    }
    if (!current) {
      failCall(stream.call, status.INVALID_ARGUMENT, `type ${typeUrl} is not served`);
      return;
    }
    const known: ReadonlyMap<string, string> = initial
      ? new Map(Object.entries(initial))
      : (stream.types.get(typeUrl)?.sent ?? new Map<string, string>());
    const changed = [...current.values()].filter((r) => known.get(r.name) !== r.version);
    const removed = [...known.keys()].filter((name) => !current.has(name));
    if (!initial && changed.length === 0 && removed.length === 0) return;
    const state: TypeState = {
      sent: new Map([...current.values()].map((r) => [r.name, r.version])),
      nonce: String(++nonce),
      version: versionOf(current),
    };
    stream.types.set(typeUrl, state);
    stream.call.write({
      system_version_info: state.version,
      type_url: typeUrl,
      nonce: state.nonce,
      resources: changed.map((r) => ({
        name: r.name,
        version: r.version,
        resource: { type_url: typeUrl, value: Buffer.from(r.bytes) },
      })),
      removed_resources: removed,
    });
  };

  const refuse = (stream: Stream, nodeId: string, code: status, reason: string): void => {
    options.onRefused?.(nodeId, reason);
    failCall(stream.call, code, reason);
  };

  const onRequest = (stream: Stream, req: DeltaRequest): void => {
    if (stream.call.writableEnded || !stream.caller) return;
    if (!stream.node) {
      const node = parseZtunnelNode(req.node);
      if (typeof node === 'string') {
        refuse(stream, req.node?.id ?? '', status.INVALID_ARGUMENT, node);
        return;
      }
      const why = authorizeZtunnel(node, stream.caller);
      if (why !== undefined) {
        refuse(stream, node.id, status.PERMISSION_DENIED, why);
        return;
      }
      stream.node = node;
    }
    const node = stream.node;
    const typeUrl = req.type_url ?? '';
    const last = stream.types.get(typeUrl);
    if (req.error_detail) {
      const nack = {
        node: node.id,
        typeUrl,
        version: last?.version ?? '',
        message: req.error_detail.message ?? '',
      };
      nacks.push(nack);
      options.onNack?.(nack);
      return;
    }
    if (!last) {
      if (!isWildcard(req)) {
        refuse(
          stream,
          node.id,
          status.INVALID_ARGUMENT,
          `only wildcard subscriptions are served (${typeUrl})`,
        );
        return;
      }
      send(stream, node, typeUrl, req.initial_resource_versions ?? {});
      return;
    }
    // No nonce: a change of subscription, which a wildcard subscriber does not make; an older one: stale.
    if (!req.response_nonce || req.response_nonce !== last.nonce) return;
    acked.set(`${node.id}\u0000${typeUrl}`, last.version);
  };

  const handle = (call: ServerDuplexStream<DeltaRequest, unknown>): void => {
    const stream: Stream = { call, types: new Map() };
    streams.add(stream);
    // Requests wait for the token's review, in order.
    let queue: Promise<void> = (async () => {
      const header = String(call.metadata.get('authorization')[0] ?? '');
      const token = /^Bearer (.+)$/.exec(header)?.[1];
      const caller = token
        ? await options.authenticate(token)
        : 'no bearer token in the authorization header';
      if (typeof caller === 'string') refuse(stream, '', status.UNAUTHENTICATED, caller);
      else stream.caller = caller;
    })().catch((err: unknown) => {
      refuse(stream, '', status.UNAUTHENTICATED, `the token could not be reviewed: ${String(err)}`);
    });
    call.on('data', (req: DeltaRequest) => {
      queue = queue
        .then(() => {
          onRequest(stream, req);
        })
        .catch((err: unknown) => {
          failCall(call, status.INTERNAL, `request failed: ${String(err)}`);
        });
    });
    forgetOnEnd(streams, stream, call);
  };

  const server = new Server();
  server.addService(adsService(), {
    StreamAggregatedResources: (call: ServerDuplexStream<unknown, unknown>) => {
      failCall(call, status.UNIMPLEMENTED, 'this port serves delta xDS to ztunnel; Envoy has its own');
    },
    DeltaAggregatedResources: handle,
  });
  for (const service of options.services ?? []) server.addService(service.definition, service.implementation);
  const credentials = ServerCredentials.createSsl(
    null,
    [{ private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) }],
    false,
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${String(options.port)}`, credentials, (err, bound) => {
      if (err) reject(err);
      else resolve(bound);
    });
  });
  return {
    address: `${options.host}:${String(port)}`,
    update() {
      for (const stream of streams)
        if (stream.node) for (const typeUrl of stream.types.keys()) send(stream, stream.node, typeUrl);
    },
    acked: (node, typeUrl) => acked.get(`${node}\u0000${typeUrl}`),
    nacks: () => nacks,
    proxies: () => [...streams].flatMap((s) => (s.node ? [s.node.id] : [])),
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.call.end();
        server.tryShutdown(() => {
          resolve();
        });
      }),
  };
}
