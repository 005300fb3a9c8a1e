// istio.v1.auth.IstioCertificateService as istio/ztunnel calls it (proto/citadel.proto at 1.28.1,
// 9263b88677bab2d68ef7cd99040e8cb03584c957): our own protobufjs definitions of the request's three
// fields (csr = 1, validity_duration = 3, metadata = 4) and the response's cert_chain = 1, written
// from the published names and numbers; nothing is copied from that file. google.protobuf.Struct
// and Value are protobufjs's own bundled definition (protobuf.common 'google/protobuf/struct.proto').
// The service is a grpc-js ServiceDefinition whose (de)serializers are these types.
import type { ServiceDefinition } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

export const CREATE_CERTIFICATE_METHOD = '/istio.v1.auth.IstioCertificateService/CreateCertificate';

/** IstioCertificateRequest as decoded (camelCase, int64 as a number, Struct as protobufjs gives it). */
export interface IstioCertificateRequest {
  csr: string;
  validityDuration: number;
  metadata?: { fields?: Record<string, { stringValue?: string } | undefined> };
}

export interface IstioCertificateResponse {
  certChain: string[];
}

function defineTypes(): protobuf.Root {
  const struct = protobuf.common.get('google/protobuf/struct.proto');
  if (!struct) throw new Error('protobufjs ships no google/protobuf/struct.proto');
  const root = protobuf.Root.fromJSON(struct);
  const { Field, Type } = protobuf;
  root
    .define('istio.v1.auth')
    .add(
      new Type('IstioCertificateRequest')
        .add(new Field('csr', 1, 'string'))
        .add(new Field('validityDuration', 3, 'int64'))
        .add(new Field('metadata', 4, 'google.protobuf.Struct')),
    )
    .add(new Type('IstioCertificateResponse').add(new Field('certChain', 1, 'string', 'repeated')));
  root.resolveAll();
  return root;
}

let root: protobuf.Root | undefined;
const typeOf = (name: string): protobuf.Type => (root ??= defineTypes()).lookupType(name);

function codec<T extends object>(
  name: string,
): {
  encode(value: T): Buffer;
  decode(bytes: Buffer): T;
} {
  return {
    encode: (value) => Buffer.from(typeOf(name).encode(typeOf(name).fromObject(value)).finish()),
    decode: (bytes) =>
      typeOf(name).toObject(typeOf(name).decode(bytes), { longs: Number, arrays: true, defaults: true }) as T,
  };
}

export const certificateRequestCodec = codec<IstioCertificateRequest>(
  'istio.v1.auth.IstioCertificateRequest',
);
export const certificateResponseCodec = codec<IstioCertificateResponse>(
  'istio.v1.auth.IstioCertificateResponse',
);

/** The service for grpc-js's Server.addService (and makeGenericClientConstructor, for tests). */
export const certificateServiceDefinition: ServiceDefinition = {
  CreateCertificate: {
    path: CREATE_CERTIFICATE_METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: IstioCertificateRequest) => certificateRequestCodec.encode(value),
    requestDeserialize: (bytes: Buffer) => certificateRequestCodec.decode(bytes),
    responseSerialize: (value: IstioCertificateResponse) => certificateResponseCodec.encode(value),
    responseDeserialize: (bytes: Buffer) => certificateResponseCodec.decode(bytes),
  },
};
