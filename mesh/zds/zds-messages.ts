// ZDS, the protocol istio-cni's node agent speaks with ztunnel in shared (in-pod) mode: protobuf
// messages, one per SOCK_SEQPACKET datagram. The definitions below are ours, written with
// protobufjs's reflection API from the published schema's field names and numbers (istio/ztunnel
// proto/zds.proto at 62d826530e5ce85764e309170205b293efcbc80b, the same schema as istio/istio
// pkg/zdsapi/zds.proto); nothing is copied or generated from that file. The wire format is what
// prost (ztunnel) and google.golang.org/protobuf (istio-cni) write: a test pins the exact bytes.
import protobuf from 'protobufjs';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** ZdsHello.version: the only version there is (zds.proto `enum Version { NOT_USED = 0; V1 = 1; }`). */
export const ZDS_VERSION_V1 = 1;

/** zds.proto WorkloadInfo: what istio-cni's podToWorkload fills from the pod. */
export interface ZdsWorkloadInfo {
  name: string;
  namespace: string;
  serviceAccount: string;
}

/**
 * zds.proto WorkloadRequest (node agent -> ztunnel), one payload each. `add` travels with the pod's
 * network namespace as an SCM_RIGHTS fd (never in the bytes); ztunnel refuses an add without
 * `workloadInfo` (src/inpod/statemanager.rs, "workload_info is required").
 */
export type ZdsRequest =
  | { kind: 'add'; uid: string; workloadInfo?: ZdsWorkloadInfo }
  | { kind: 'keep'; uid: string }
  | { kind: 'del'; uid: string }
  | { kind: 'snapshot-sent' };

/** zds.proto WorkloadResponse (ztunnel -> node agent): an Ack, a nack when `error` is not empty. */
export interface ZdsAck {
  error: string;
}

function defineZds(): protobuf.Namespace {
  const { Enum, Field, OneOf, Root, Type } = protobuf;
  const message = (name: string, fields: [string, number, string][]): protobuf.Type => {
    const type = new Type(name);
    for (const [field, id, fieldType] of fields) type.add(new Field(field, id, fieldType));
    return type;
  };
  const request = message('WorkloadRequest', [
    ['add', 1, 'AddWorkload'],
    ['keep', 5, 'KeepWorkload'],
    ['del', 2, 'DelWorkload'],
    ['snapshot_sent', 3, 'SnapshotSent'],
  ]).add(new OneOf('payload', ['add', 'keep', 'del', 'snapshot_sent']));
  const response = message('WorkloadResponse', [['ack', 1, 'Ack']]).add(new OneOf('payload', ['ack']));
  const zds = new Root()
    .define('istio.workload.zds')
    .add(new Enum('Version', { NOT_USED: 0, V1: ZDS_VERSION_V1 }))
    .add(message('ZdsHello', [['version', 1, 'Version']]))
    .add(
      message('WorkloadInfo', [
        ['name', 1, 'string'],
        ['namespace', 2, 'string'],
        ['service_account', 3, 'string'],
      ]),
    )
    .add(
      message('AddWorkload', [
        ['uid', 1, 'string'],
        ['workload_info', 2, 'WorkloadInfo'],
      ]),
    )
    .add(message('KeepWorkload', [['uid', 1, 'string']]))
    // Field 2, not 1: DelWorkload's uid is numbered 2 in the schema.
    .add(message('DelWorkload', [['uid', 2, 'string']]))
    .add(message('SnapshotSent', []))
    .add(message('Ack', [['error', 1, 'string']]))
    .add(request)
    .add(response);
  zds.root.resolveAll();
  return zds;
}

let types: protobuf.Namespace | undefined;
function zdsType(name: string): protobuf.Type {
  types ??= defineZds();
  return types.lookupType(name);
}

/**
 * proto3 leaves a scalar at its default (0, "") off the wire, as prost and Go do; protobufjs writes
 * any field the object has, so defaults are removed first. Messages stay, empty or not (a oneof
 * member's presence is its meaning: SnapshotSent, an Ack without error).
 */
function withoutDefaults(value: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === '' || v === 0 || v === undefined) continue;
    kept[key] = typeof v === 'object' && v !== null ? withoutDefaults(v as Record<string, unknown>) : v;
  }
  return kept;
}

function encode(name: string, value: Record<string, unknown>): Uint8Array {
  const type = zdsType(name);
  return type.encode(type.fromObject(withoutDefaults(value))).finish();
}

/** The message in `bytes`, as a plain object with enums as numbers, or a HarnessError saying why not. */
function decode(name: string, bytes: Uint8Array): Record<string, unknown> {
  const type = zdsType(name);
  try {
    return type.toObject(type.decode(bytes), { enums: Number, oneofs: true, defaults: true });
  } catch (err) {
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `cannot decode a ZDS ${name} from ${String(bytes.length)} bytes (${Buffer.from(bytes).toString('hex').slice(0, 64)}): ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

export function encodeZdsHello(version = ZDS_VERSION_V1): Uint8Array {
  return encode('ZdsHello', { version });
}

export function decodeZdsHello(bytes: Uint8Array): { version: number } {
  const { version } = decode('ZdsHello', bytes);
  return { version: typeof version === 'number' ? version : 0 };
}

export function encodeZdsRequest(request: ZdsRequest): Uint8Array {
  switch (request.kind) {
    case 'add': {
      const info = request.workloadInfo;
      const workloadInfo = info && {
        name: info.name,
        namespace: info.namespace,
        service_account: info.serviceAccount,
      };
      return encode('WorkloadRequest', { add: { uid: request.uid, workload_info: workloadInfo } });
    }
    case 'keep':
      return encode('WorkloadRequest', { keep: { uid: request.uid } });
    case 'del':
      return encode('WorkloadRequest', { del: { uid: request.uid } });
    case 'snapshot-sent':
      return encode('WorkloadRequest', { snapshot_sent: {} });
  }
}

const asString = (v: unknown): string => (typeof v === 'string' ? v : '');
const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};

/** The request in `bytes`; a request without a payload is an error, as ztunnel answers it ("no payload"). */
export function decodeZdsRequest(bytes: Uint8Array): ZdsRequest {
  const message = decode('WorkloadRequest', bytes);
  const body = asRecord(message[asString(message['payload'])]);
  switch (message['payload']) {
    case 'add': {
      const info = body['workload_info'];
      if (info === undefined || info === null) return { kind: 'add', uid: asString(body['uid']) };
      const w = asRecord(info);
      return {
        kind: 'add',
        uid: asString(body['uid']),
        workloadInfo: {
          name: asString(w['name']),
          namespace: asString(w['namespace']),
          serviceAccount: asString(w['service_account']),
        },
      };
    }
    case 'keep':
      return { kind: 'keep', uid: asString(body['uid']) };
    case 'del':
      return { kind: 'del', uid: asString(body['uid']) };
    case 'snapshot_sent':
      return { kind: 'snapshot-sent' };
    default:
      throw new HarnessError(ErrorCode.ComponentFailed, 'a ZDS WorkloadRequest with no payload');
  }
}

export function encodeZdsAck(error = ''): Uint8Array {
  return encode('WorkloadResponse', { ack: { error } });
}

/**
 * The ack in `bytes`, or undefined for a WorkloadResponse with no payload (istio-cni reads that as
 * no error: `resp.GetAck().GetError()` is "" on a nil Ack).
 */
export function decodeZdsAck(bytes: Uint8Array): ZdsAck | undefined {
  const message = decode('WorkloadResponse', bytes);
  if (message['payload'] !== 'ack') return undefined;
  return { error: asString(asRecord(message['ack'])['error']) };
}
