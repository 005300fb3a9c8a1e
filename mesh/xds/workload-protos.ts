// The discovery types istio/ztunnel subscribes to (src/xds/types.rs 44-46): istio.workload.Address
// and istio.security.Authorization. The definitions below are ours, written with protobufjs's
// reflection API from the published schema's names and numbers (istio/ztunnel proto/workload.proto
// and proto/authorization.proto at 1.28.1, 9263b88677bab2d68ef7cd99040e8cb03584c957), and only the
// fields we set; nothing is copied or generated from those files. Field names are camelCase, as
// protobufjs names a .proto's fields; the wire only carries the numbers. A test pins the bytes.
import { isIPv4, isIPv6 } from 'node:net';
import protobuf from 'protobufjs';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

export const ADDRESS_TYPE_URL = 'type.googleapis.com/istio.workload.Address';
export const AUTHORIZATION_TYPE_URL = 'type.googleapis.com/istio.security.Authorization';

/** workload.proto Port (308-313): a service port and the workload's port it maps to. */
export interface PortMessage {
  servicePort: number;
  targetPort: number;
}

/** workload.proto Workload (169-281), the fields we set. Enums as their names. */
export interface WorkloadMessage {
  uid: string;
  name: string;
  namespace: string;
  /** 4 bytes (IPv4) or 16 (IPv6) each: ztunnel's byte_to_ip refuses anything else. */
  addresses: Uint8Array[];
  tunnelProtocol: 'NONE' | 'HBONE';
  trustDomain: string;
  serviceAccount: string;
  node: string;
  workloadType: 'DEPLOYMENT' | 'CRONJOB' | 'POD' | 'JOB';
  /** The owner's name (istiod: the Deployment's); unset here. */
  workloadName?: string;
  canonicalName?: string;
  status: 'HEALTHY' | 'UNHEALTHY';
  clusterId: string;
  /** Keyed `namespace/hostname` (src/state/workload.rs 435-447 splits at the '/'). */
  services: Record<string, { ports: PortMessage[] }>;
}

/** workload.proto Service (58-92), the fields we set; an address is NetworkAddress (362-367). */
export interface ServiceMessage {
  name: string;
  namespace: string;
  hostname: string;
  addresses: { network: string; address: Uint8Array }[];
  ports: PortMessage[];
}

/** workload.proto Address (45-53): `oneof type { Workload workload = 1; Service service = 2; }`. */
export type AddressMessage = { workload: WorkloadMessage } | { service: ServiceMessage };

function defineTypes(): protobuf.Root {
  const { Enum, Field, MapField, OneOf, Root, Type } = protobuf;
  type Spec = [name: string, id: number, type: string, rule?: 'repeated'];
  const message = (name: string, fields: Spec[]): protobuf.Type => {
    const type = new Type(name);
    for (const [field, id, fieldType, rule] of fields) type.add(new Field(field, id, fieldType, rule));
    return type;
  };
  const root = new Root();
  root
    .define('istio.workload')
    .add(new Enum('TunnelProtocol', { NONE: 0, HBONE: 1 })) // 316-323
    .add(new Enum('WorkloadStatus', { HEALTHY: 0, UNHEALTHY: 1 })) // 289-294
    .add(new Enum('WorkloadType', { DEPLOYMENT: 0, CRONJOB: 1, POD: 2, JOB: 3 })) // 296-301
    .add(
      message('Port', [
        ['servicePort', 1, 'uint32'],
        ['targetPort', 2, 'uint32'],
      ]),
    )
    .add(message('PortList', [['ports', 1, 'Port', 'repeated']]))
    .add(
      message('NetworkAddress', [
        ['network', 1, 'string'],
        ['address', 2, 'bytes'],
      ]),
    )
    .add(
      message('Workload', [
        ['name', 1, 'string'],
        ['namespace', 2, 'string'],
        ['addresses', 3, 'bytes', 'repeated'],
        ['tunnelProtocol', 5, 'TunnelProtocol'],
        ['trustDomain', 6, 'string'],
        ['serviceAccount', 7, 'string'],
        ['node', 9, 'string'],
        ['canonicalName', 10, 'string'],
        ['workloadType', 12, 'WorkloadType'],
        ['workloadName', 13, 'string'],
        ['status', 17, 'WorkloadStatus'],
        ['clusterId', 18, 'string'],
        ['uid', 20, 'string'],
      ]).add(new MapField('services', 22, 'string', 'PortList')),
    )
    .add(
      message('Service', [
        ['name', 1, 'string'],
        ['namespace', 2, 'string'],
        ['hostname', 3, 'string'],
        ['addresses', 4, 'NetworkAddress', 'repeated'],
        ['ports', 5, 'Port', 'repeated'],
      ]),
    )
    .add(
      message('Address', [
        ['workload', 1, 'Workload'],
        ['service', 2, 'Service'],
      ]).add(new OneOf('type', ['workload', 'service'])),
    );
  // authorization.proto Authorization (22-37): we serve none (no policies), so name and namespace
  // are all a decoder of ours needs.
  root.define('istio.security').add(
    message('Authorization', [
      ['name', 1, 'string'],
      ['namespace', 2, 'string'],
    ]),
  );
  root.resolveAll();
  return root;
}

let root: protobuf.Root | undefined;
function typeOf(name: string): protobuf.Type {
  root ??= defineTypes();
  return root.lookupType(name);
}

/**
 * proto3 leaves a scalar at its default (0, "", an enum's first value) off the wire, as prost and Go
 * do; protobufjs writes any field the object has, so defaults are removed first. Messages (a oneof
 * member) stay, and so do empty lists and maps (nothing is written for them).
 */
function withoutDefaults(value: unknown, enumZero: ReadonlySet<string>): unknown {
  if (value instanceof Uint8Array || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => withoutDefaults(v, enumZero));
  const kept: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === '' || v === 0 || v === undefined || (typeof v === 'string' && enumZero.has(v))) continue;
    kept[key] = withoutDefaults(v, enumZero);
  }
  return kept;
}

// Each enum's zero value, by name (none of these names is also a value we send as a string field).
const ENUM_ZEROS = new Set(['NONE', 'HEALTHY', 'DEPLOYMENT']);

function encode(name: string, value: object): Uint8Array {
  const type = typeOf(name);
  return type.encode(type.fromObject(withoutDefaults(value, ENUM_ZEROS) as Record<string, unknown>)).finish();
}

function decode(name: string, bytes: Uint8Array): Record<string, unknown> {
  const type = typeOf(name);
  try {
    return type.toObject(type.decode(bytes), { enums: String, defaults: true, arrays: true, objects: true });
  } catch (err) {
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `cannot decode an ${name} from ${String(bytes.length)} bytes (${Buffer.from(bytes).toString('hex').slice(0, 64)}): ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

export function encodeAddress(address: AddressMessage): Uint8Array {
  return encode('istio.workload.Address', address);
}

/** An Address as a plain object (enums by name, defaults filled), for tests and logs. */
export function decodeAddress(bytes: Uint8Array): AddressMessage {
  const message = decode('istio.workload.Address', bytes);
  if (message['workload']) return { workload: message['workload'] as WorkloadMessage };
  if (message['service']) return { service: message['service'] as ServiceMessage };
  throw new HarnessError(ErrorCode.ComponentFailed, 'an Address with neither a workload nor a service');
}

/** The Workload an Address holds, or a HarnessError saying it holds a Service. */
export function decodeWorkload(bytes: Uint8Array): WorkloadMessage {
  const address = decodeAddress(bytes);
  if ('workload' in address) return address.workload;
  throw new HarnessError(ErrorCode.ComponentFailed, `an Address holding service ${address.service.hostname}`);
}

/** An IP address as the 4 or 16 bytes workload.proto's `addresses` carries (network byte order). */
export function ipBytes(ip: string): Uint8Array {
  if (isIPv4(ip)) return Uint8Array.from(ip.split('.').map(Number));
  if (!isIPv6(ip) || ip.includes('.'))
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `Expected an IPv4 or plain IPv6 address for a workload, got ${JSON.stringify(ip)}`,
    );
  const [head = '', tail] = ip.split('::');
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    const n = parseInt(g, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 0xff;
  });
  return bytes;
}
