// ztunnel's workload discovery from istiod itself (our ztunnel with XDS_ADDRESS an https:// URL):
// one DeltaAggregatedResources stream over TLS with the pod's token as `authorization: Bearer`, a
// wildcard subscription to istio.workload.Address, ACK or NACK by nonce, as istio/ztunnel's xDS
// client does (src/xds/client.rs at 1.28.1: the node 336-373, the initial request 374-395, ACK and
// NACK 706-745, a NACK's error_detail carrying only the message). Each response becomes one delta
// of the same DiscoveryState our JSON-lines client fills (mesh/discovery), applied whole or refused
// whole. Authorization (policies) is not subscribed: our ztunnel enforces none.
import { credentials, Metadata, status } from '@grpc/grpc-js';
import type { ClientDuplexStream, ServiceClientConstructor, ServiceError, StatusObject } from '@grpc/grpc-js';
import { createDiscoveryState, serviceKey } from '../discovery/index.ts';
import type {
  DiscoveryClient,
  DiscoveryClientOptions,
  DiscoveryState,
  ServerMessage,
} from '../discovery/index.ts';
import { envoyApi } from './envoy-protos.ts';
import { ADDRESS_TYPE_URL, decodeAddress } from './workload-protos.ts';
import { discoveryEntryOf } from './workload-resources.ts';

/** DeltaDiscoveryResponse as proto-loader gives it (keepCase; an empty repeated field left out). */
interface DeltaResponse {
  system_version_info?: string;
  type_url?: string;
  nonce?: string;
  resources?: { name: string; version?: string; resource?: { value: Buffer } }[];
  removed_resources?: string[];
}

export interface DeltaAdsClientOptions extends Pick<
  DiscoveryClientOptions,
  'onChange' | 'onNack' | 'connectTimeoutMs'
> {
  /** host:port of istiod's discovery (XDS_ADDRESS without its scheme). */
  address: string;
  /** The mesh root istiod's serving certificate chains to (XDS_ROOT_CA). */
  rootPem: string;
  /** The pod's istio-ca token, read afresh for each stream (the kubelet rotates it). */
  token(): string;
  /** The node as client.rs sends it: `ztunnel~<ip>~<pod>.<ns>~<ns>.svc.cluster.local` and metadata. */
  node: { id: string; metadata: Record<string, string> };
  /**
   * Sent as the `clusterid` header beside the token (src/identity/auth.rs 28-40): istiod reviews the
   * token against that cluster's API server.
   */
  clusterId: string;
  /**
   * What a dropped stream filled, to resume on: the new stream's first request echoes each held
   * resource's version (`initial_resource_versions`, client.rs run_internal), and its answers apply
   * to the same state.
   */
  holdings?: DeltaAdsHoldings;
}

/** What the resource names were added as: a workload (keyed by the name) or a service (by `namespace/name`). */
type Held = ({ kind: 'workload' } | { kind: 'service'; key: string }) & { version: string };

/** The state a subscription fills and the names (with versions) it holds, kept across its streams. */
export interface DeltaAdsHoldings {
  state: DiscoveryState;
  held: Map<string, Held>;
}

export function createDeltaAdsHoldings(): DeltaAdsHoldings {
  return { state: createDiscoveryState(), held: new Map() };
}

/** The node id istio/ztunnel sends (client.rs 336-373): istiod authorizes the stream by it. */
export function ztunnelNodeId(pod: { ip: string; name: string; namespace: string }): string {
  return `ztunnel~${pod.ip}~${pod.name}.${pod.namespace}~${pod.namespace}.svc.cluster.local`;
}

/** A grpc-js client of Envoy's AggregatedDiscoveryService at `address`, trusting `rootPem`. */
export function adsClient(address: string, rootPem: string): InstanceType<ServiceClientConstructor> {
  const Ads = 'envoy.service.discovery.v3.AggregatedDiscoveryService'
    .split('.')
    .reduce<unknown>(
      (at, key) => (at as Record<string, unknown>)[key],
      envoyApi(),
    ) as ServiceClientConstructor;
  return new Ads(address, credentials.createSsl(Buffer.from(rootPem)));
}

/**
 * One response as a delta of our state: each resource decoded (one that does not decode fails the
 * whole response, which is then NACKed), removals routed by what each name was added as. `added`
 * says what the upserted names are, to record once the delta is applied.
 */
function toDelta(
  response: DeltaResponse,
  held: ReadonlyMap<string, Held>,
): { message: ServerMessage; added: Map<string, Held> } {
  const message: ServerMessage = {
    type: 'delta',
    version: response.system_version_info ?? '',
    nonce: response.nonce ?? '',
    workloads: { upsert: [], remove: [] },
    services: { upsert: [], remove: [] },
  };
  const added = new Map<string, Held>();
  for (const r of response.resources ?? []) {
    const entry = discoveryEntryOf(r.name, decodeAddress(r.resource?.value ?? new Uint8Array()));
    if (!entry) {
      // Now unroutable (its IPv4 address gone): what we held under that name goes.
      const was = held.get(r.name);
      if (was?.kind === 'workload') message.workloads.remove.push(r.name);
      else if (was?.kind === 'service') message.services.remove.push(was.key);
      continue;
    }
    const version = r.version ?? '';
    if ('workload' in entry) {
      message.workloads.upsert.push(entry.workload);
      added.set(r.name, { kind: 'workload', version });
    } else {
      message.services.upsert.push(entry.service);
      added.set(r.name, { kind: 'service', key: serviceKey(entry.service), version });
    }
  }
  for (const name of response.removed_resources ?? []) {
    const was = held.get(name);
    if (was?.kind === 'workload') message.workloads.remove.push(name);
    else if (was?.kind === 'service') message.services.remove.push(was.key);
  }
  return { message, added };
}

/**
 * Subscribes and applies each response. Resolves once the stream is open; `synced` resolves at the
 * first response applied, and rejects (ECONNRESET, or the status istiod ended the stream with) if
 * the stream ends before that.
 */
export function connectDeltaAds(options: DeltaAdsClientOptions): Promise<DiscoveryClient> {
  const client = adsClient(options.address, options.rootPem);
  const md = new Metadata();
  md.set('authorization', `Bearer ${options.token()}`);
  md.set('clusterid', options.clusterId);
  const deadline = options.connectTimeoutMs;
  const open = client['DeltaAggregatedResources'] as (
    md: Metadata,
  ) => ClientDuplexStream<object, DeltaResponse>;
  const call = open.call(client, md);
  // Resource name -> what it was added as (a removal names only the resource), and its version.
  const { state, held } = options.holdings ?? createDeltaAdsHoldings();
  const initialVersions = Object.fromEntries([...held].map(([name, h]) => [name, h.version]));
  const synced = Promise.withResolvers<undefined>();
  const ended = Promise.withResolvers<string>();
  let endReason = 'closed by istiod';
  synced.promise.catch(() => undefined);
  let isSynced = false;
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(() => {
          call.cancel();
          synced.reject(
            Object.assign(
              new Error(`no response from istiod ${options.address} within ${String(deadline)} ms`),
              { code: 'ETIMEDOUT' },
            ),
          );
        }, deadline);
  call.on('error', (err: ServiceError) => {
    clearTimeout(timer);
    if (isSynced) return;
    const code = err.code === status.UNAVAILABLE || err.code === status.CANCELLED ? 'ECONNRESET' : undefined;
    synced.reject(
      Object.assign(
        new Error(`delta ADS stream to ${options.address} ended: ${err.details || err.message}`),
        {
          ...(code ? { code } : {}),
          grpcCode: err.code,
        },
      ),
    );
  });
  call.on('data', (response: DeltaResponse) => {
    const nonce = response.nonce ?? '';
    try {
      const { message, added } = toDelta(response, held);
      const change = state.apply(message);
      for (const name of response.removed_resources ?? []) held.delete(name);
      for (const [name, what] of added) held.set(name, what);
      call.write({ type_url: ADDRESS_TYPE_URL, response_nonce: nonce });
      if (!isSynced) {
        isSynced = true;
        clearTimeout(timer);
        synced.resolve(undefined);
      }
      options.onChange?.(change);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      call.write({
        type_url: ADDRESS_TYPE_URL,
        response_nonce: nonce,
        error_detail: { message: error },
      });
      options.onNack?.(error);
    }
  });
  // Every end of the call (istiod's status, a drop, our cancel) comes as one status.
  call.on('status', (st: StatusObject) => {
    if (endReason !== 'closed') endReason = `${status[st.code]}: ${st.details}`;
    ended.resolve(endReason);
  });
  // The first request names the node and subscribes to every Address (no names: a wildcard); on a
  // resumed stream it carries the versions held.
  call.write({
    ...(held.size > 0 ? { initial_resource_versions: initialVersions } : {}),
    node: {
      id: options.node.id,
      metadata: {
        fields: Object.fromEntries(
          Object.entries(options.node.metadata).map(([k, v]) => [k, { stringValue: v }]),
        ),
      },
    },
    type_url: ADDRESS_TYPE_URL,
  });
  return Promise.resolve({
    state,
    synced: synced.promise,
    ended: ended.promise,
    close: () => {
      endReason = 'closed';
      clearTimeout(timer);
      call.cancel();
      client.close();
    },
  });
}
