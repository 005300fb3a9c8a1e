import { createHash } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { failCall, forgetOnEnd } from './ads-server.ts';
import type { XdsNack } from './ads-server.ts';
import type { ResourceSet } from './workload-resources.ts';
import { authorizeZtunnel, parseZtunnelNode } from './ztunnel-node.ts';
import type { XdsCaller, ZtunnelNode } from './ztunnel-node.ts';
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';

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

/** envoy.service.discovery.v3.DeltaDiscoveryRequest as proto-loader decodes it (keepCase). */
export interface DeltaRequest {
  node?: { id?: string; metadata?: unknown };
  type_url?: string;
  resource_names_subscribe?: string[];
  resource_names_unsubscribe?: string[];
  initial_resource_versions?: Record<string, string>;
  response_nonce?: string;
  error_detail?: { message?: string };
}

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

/** One delta ADS server's streams and books (delta-ads-server.ts describes the protocol). */
export interface DeltaAdsState {
  options: DeltaAdsServerOptions;
  streams: Set<Stream>;
  /** node id NUL type URL -> the version it ACKed last. */
  acked: Map<string, string>;
  nacks: XdsNack[];
  nonce: number;
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

/** The type's resources for the node now; undefined (and the stream failed) when there are none to serve. */
function currentResources(
  state: DeltaAdsState,
  stream: Stream,
  target: { node: ZtunnelNode; typeUrl: string },
): ResourceSet | undefined {
  const { typeUrl } = target;
  let current: ResourceSet | undefined;
  try {
    current = state.options.resourcesFor(target.node, typeUrl);
  } catch (err) {
    failCall(stream.call, status.INTERNAL, `cannot build ${typeUrl}: ${(err as Error).message}`);
    return undefined;
  }
  if (!current) failCall(stream.call, status.INVALID_ARGUMENT, `type ${typeUrl} is not served`);
  return current;
}

/**
 * Sends what changed of a type since the client's last response (or since `initial`, what it holds
 * on a subscription), and what was removed; nothing when nothing did, unless it is a subscription.
 */
function sendChanges(
  state: DeltaAdsState,
  stream: Stream,
  target: { node: ZtunnelNode; typeUrl: string; initial?: Record<string, string> },
): void {
  const { typeUrl, initial } = target;
  const current = currentResources(state, stream, target);
  if (!current) return;
  const known: ReadonlyMap<string, string> = initial
    ? new Map(Object.entries(initial))
    : (stream.types.get(typeUrl)?.sent ?? new Map<string, string>());
  const changed = [...current.values()].filter((r) => known.get(r.name) !== r.version);
  const removed = [...known.keys()].filter((name) => !current.has(name));
  if (!initial && changed.length === 0 && removed.length === 0) return;
  const sent: TypeState = {
    sent: new Map([...current.values()].map((r) => [r.name, r.version])),
    nonce: String(++state.nonce),
    version: versionOf(current),
  };
  stream.types.set(typeUrl, sent);
  stream.call.write({
    system_version_info: sent.version,
    type_url: typeUrl,
    nonce: sent.nonce,
    resources: changed.map((r) => ({
      name: r.name,
      version: r.version,
      resource: { type_url: typeUrl, value: Buffer.from(r.bytes) },
    })),
    removed_resources: removed,
  });
}

/** A push: each ztunnel gets, per type it subscribed to, what changed. */
export function sendUpdates(state: DeltaAdsState): void {
  for (const stream of state.streams)
    if (stream.node)
      for (const typeUrl of stream.types.keys()) sendChanges(state, stream, { node: stream.node, typeUrl });
}

function refuse(
  state: DeltaAdsState,
  stream: Stream,
  refusal: { nodeId: string; code: status; reason: string },
): void {
  state.options.onRefused?.(refusal.nodeId, refusal.reason);
  failCall(stream.call, refusal.code, refusal.reason);
}

/** The stream's node, named by its first request and authorized for its caller; undefined: refused. */
function identifyNode(
  state: DeltaAdsState,
  stream: Stream,
  request: { req: DeltaRequest; caller: XdsCaller },
): ZtunnelNode | undefined {
  if (stream.node) return stream.node;
  const { req, caller } = request;
  const node = parseZtunnelNode(req.node);
  if (typeof node === 'string') {
    refuse(state, stream, { nodeId: req.node?.id ?? '', code: status.INVALID_ARGUMENT, reason: node });
    return undefined;
  }
  const why = authorizeZtunnel(node, caller);
  if (why !== undefined) {
    refuse(state, stream, { nodeId: node.id, code: status.PERMISSION_DENIED, reason: why });
    return undefined;
  }
  stream.node = node;
  return node;
}

function onRequest(state: DeltaAdsState, stream: Stream, req: DeltaRequest): void {
  if (stream.call.writableEnded || !stream.caller) return;
  const node = identifyNode(state, stream, { req, caller: stream.caller });
  if (!node) return;
  const typeUrl = req.type_url ?? '';
  const last = stream.types.get(typeUrl);
  if (req.error_detail) {
    const nack = {
      node: node.id,
      typeUrl,
      version: last?.version ?? '',
      message: req.error_detail.message ?? '',
    };
    state.nacks.push(nack);
    state.options.onNack?.(nack);
    return;
  }
  if (!last) {
    if (!isWildcard(req)) {
      const reason = `only wildcard subscriptions are served (${typeUrl})`;
      refuse(state, stream, { nodeId: node.id, code: status.INVALID_ARGUMENT, reason });
      return;
    }
    sendChanges(state, stream, { node, typeUrl, initial: req.initial_resource_versions ?? {} });
    return;
  }
  // No nonce: a change of subscription, which a wildcard subscriber does not make; an older one: stale.
  if (!req.response_nonce || req.response_nonce !== last.nonce) return;
  state.acked.set(`${node.id}\u0000${typeUrl}`, last.version);
}

/** Reviews the stream's bearer token: its caller, or the stream is refused. */
async function authenticate(state: DeltaAdsState, stream: Stream): Promise<void> {
  const header = String(stream.call.metadata.get('authorization')[0] ?? '');
  const token = /^Bearer (.+)$/.exec(header)?.[1];
  const caller = token
    ? await state.options.authenticate(token)
    : 'no bearer token in the authorization header';
  if (typeof caller === 'string')
    refuse(state, stream, { nodeId: '', code: status.UNAUTHENTICATED, reason: caller });
  else stream.caller = caller;
}

/** DeltaAggregatedResources: one ztunnel's stream. */
export function handleDeltaStream(
  state: DeltaAdsState,
  call: ServerDuplexStream<DeltaRequest, unknown>,
): void {
  const stream: Stream = { call, types: new Map() };
  state.streams.add(stream);
  // Requests wait for the token's review, in order.
  let queue: Promise<void> = authenticate(state, stream).catch((err: unknown) => {
    const reason = `the token could not be reviewed: ${String(err)}`;
    refuse(state, stream, { nodeId: '', code: status.UNAUTHENTICATED, reason });
  });
  call.on('data', (req: DeltaRequest) => {
    queue = queue
      .then(() => {
        onRequest(state, stream, req);
      })
      .catch((err: unknown) => {
        failCall(call, status.INTERNAL, `request failed: ${String(err)}`);
      });
  });
  forgetOnEnd(state.streams, stream, call);
}
