/**
 * Envoy's messages as @grpc/proto-loader encodes them from plain objects: well-known types take
 * their protobuf shape, not their JSON one (a Duration is `{seconds, nanos}`, a Struct is
 * `{fields: {k: {stringValue}}}`, a wrapper is `{value}`); an Any is `{'@type', ...fields}`.
 */
export type ProtoObject = Record<string, unknown>;

/** google.protobuf.Duration from milliseconds. */
export function duration(ms: number): ProtoObject {
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** google.protobuf.UInt32Value (or another numeric wrapper). */
export const wrapped = (value: number): ProtoObject => ({ value });

type StructValue = string | number | boolean | null | StructValue[] | { [key: string]: StructValue };

// google/protobuf/struct.proto comes from protobufjs's built-in copy, whose field names are camelCase
// whatever keepCase says (protobufjs src/common.js).
function value(v: StructValue): ProtoObject {
  if (v === null) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(value) } };
  return { structValue: struct(v) };
}

/** google.protobuf.Struct from a JSON object. */
export function struct(object: { [key: string]: StructValue }): ProtoObject {
  return { fields: Object.fromEntries(Object.entries(object).map(([k, v]) => [k, value(v)])) };
}

/** A google.protobuf.Any: the message's full type name and its fields. */
export const typed = (type: string, fields: ProtoObject = {}): ProtoObject => ({
  '@type': `type.googleapis.com/${type}`,
  ...fields,
});

/** An extension's `{name, typed_config}` (filters, transport sockets, access loggers, predicates). */
export const extension = (name: string, type: string, fields: ProtoObject = {}): ProtoObject => ({
  name,
  typed_config: typed(type, fields),
});
