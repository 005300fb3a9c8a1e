// A grpc-js delta ADS client for tests, speaking as istio/ztunnel does (src/xds/client.rs): one
// DeltaAggregatedResources stream per open(), a bearer token in the authorization header.
import { Metadata } from '@grpc/grpc-js';
import type { ClientDuplexStream, ServiceError } from '@grpc/grpc-js';
import { adsClient } from '../delta-ads-client.ts';

export interface DeltaResponse {
  system_version_info: string;
  type_url: string;
  nonce: string;
  resources: { name: string; version: string; resource: { type_url: string; value: Buffer } }[];
  removed_resources: string[];
}
/** As proto-loader gives it: an empty repeated field is left out (defaults: false). */
type WireResponse = Omit<DeltaResponse, 'resources' | 'removed_resources'> &
  Partial<Pick<DeltaResponse, 'resources' | 'removed_resources'>>;

export interface DeltaStream {
  stream: ClientDuplexStream<object, WireResponse>;
  /** The next response, in order. */
  next: () => Promise<DeltaResponse>;
  /** The status the stream ended with. */
  ended: Promise<ServiceError>;
}

/** A ztunnel node as client.rs 336-373 sends it (metadata as proto-loader takes a Struct). */
export function ztunnelNode(id: string, nodeName: string): { id: string; metadata: object } {
  return { id, metadata: { fields: { NODE_NAME: { stringValue: nodeName } } } };
}

function reader(call: ClientDuplexStream<object, WireResponse>): Omit<DeltaStream, 'stream'> {
  const queued: DeltaResponse[] = [];
  const waiting: ((r: DeltaResponse) => void)[] = [];
  call.on('data', (raw: WireResponse) => {
    const r = { ...raw, resources: raw.resources ?? [], removed_resources: raw.removed_resources ?? [] };
    const w = waiting.shift();
    if (w) w(r);
    else queued.push(r);
  });
  const ended = new Promise<ServiceError>((resolve) => call.on('error', resolve));
  return {
    next: () => {
      const r = queued.shift();
      return r ? Promise.resolve(r) : new Promise((resolve) => waiting.push(resolve));
    },
    ended,
  };
}

/** A client of `address` trusting `rootPem`; close() cancels its streams and closes it. */
export function createDeltaClient(
  address: string,
  rootPem: string,
): { open: (token?: string) => DeltaStream; close: () => void } {
  const client = adsClient(address, rootPem);
  const streams: DeltaStream['stream'][] = [];
  return {
    open: (token) => {
      const md = new Metadata();
      if (token) md.set('authorization', `Bearer ${token}`);
      const call = client['DeltaAggregatedResources'] as (md: Metadata) => DeltaStream['stream'];
      const stream = call.call(client, md);
      streams.push(stream);
      return { stream, ...reader(stream) };
    },
    close: () => {
      for (const s of streams) s.cancel();
      client.close();
    },
  };
}
