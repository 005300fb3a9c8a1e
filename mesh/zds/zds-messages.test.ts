import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import {
  decodeZdsAck,
  decodeZdsHello,
  decodeZdsRequest,
  encodeZdsAck,
  encodeZdsHello,
  encodeZdsRequest,
  ZDS_VERSION_V1,
} from './zds-messages.ts';
import type { ZdsRequest } from './zds-messages.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

// Expected bytes worked out by hand from the protobuf wire format (tag = field << 3 | wire type;
// 0 varint, 2 length-delimited) and zds.proto's field numbers, independently of protobufjs: what
// prost and google.golang.org/protobuf write for the same message (fields in number order, proto3
// defaults left out, a set oneof member written even when empty).
const REQUESTS: { name: string; request: ZdsRequest; bytes: string }[] = [
  {
    name: 'AddWorkload with WorkloadInfo',
    request: {
      kind: 'add',
      uid: 'u1',
      workloadInfo: { name: 'n', namespace: 'ns', serviceAccount: 'sa' },
    },
    // WorkloadRequest.add (1, LEN 17) { uid (1, LEN 2) "u1", workload_info (2, LEN 11)
    //   { name (1) "n", namespace (2) "ns", service_account (3) "sa" } }
    bytes: '0a11' + '0a027531' + '120b' + '0a016e' + '12026e73' + '1a027361',
  },
  { name: 'AddWorkload without WorkloadInfo', request: { kind: 'add', uid: 'u1' }, bytes: '0a040a027531' },
  // KeepWorkload is member 5 of the oneof: tag 0x2a.
  { name: 'KeepWorkload', request: { kind: 'keep', uid: 'u1' }, bytes: '2a040a027531' },
  // DelWorkload's uid is field 2 inside it: tag 0x12 twice.
  { name: 'DelWorkload', request: { kind: 'del', uid: 'u1' }, bytes: '1204' + '12027531' },
  // An empty SnapshotSent is still a present oneof member: tag 3, length 0.
  { name: 'SnapshotSent', request: { kind: 'snapshot-sent' }, bytes: '1a00' },
];

for (const { name, request, bytes } of REQUESTS) {
  test(`ZDS ${name}: encodes to the schema's wire bytes and decodes back`, () => {
    assert.equal(hex(encodeZdsRequest(request)), bytes);
    assert.deepEqual(decodeZdsRequest(Buffer.from(bytes, 'hex')), request);
  });
}

test('ZdsHello V1 is field 1 varint 1; an unknown version decodes as its number', () => {
  assert.equal(hex(encodeZdsHello()), '0801');
  assert.deepEqual(decodeZdsHello(Buffer.from('0801', 'hex')), { version: ZDS_VERSION_V1 });
  assert.deepEqual(decodeZdsHello(Buffer.from('0802', 'hex')), { version: 2 });
  // proto3 leaves a zero out: an empty datagram is a hello with NOT_USED.
  assert.deepEqual(decodeZdsHello(new Uint8Array()), { version: 0 });
});

test('Ack: an empty error is an ack (0a00), a non-empty one a nack; no payload is no ack', () => {
  assert.equal(hex(encodeZdsAck()), '0a00');
  assert.deepEqual(decodeZdsAck(Buffer.from('0a00', 'hex')), { error: '' });
  assert.equal(hex(encodeZdsAck('x')), '0a030a0178');
  assert.deepEqual(decodeZdsAck(Buffer.from('0a030a0178', 'hex')), { error: 'x' });
  assert.equal(decodeZdsAck(new Uint8Array()), undefined);
});

test('a request with no payload, or bytes that are not protobuf, is a HarnessError naming the bytes', () => {
  assert.throws(
    () => decodeZdsRequest(new Uint8Array()),
    (err) => isHarnessError(err) && /no payload/.test(err.message),
  );
  // Field 1, LEN 5, but only 1 byte follows.
  assert.throws(
    () => decodeZdsRequest(Buffer.from('0a0501', 'hex')),
    (err) => isHarnessError(err) && /WorkloadRequest from 3 bytes \(0a0501\)/.test(err.message),
  );
});

test('unknown fields are skipped, as prost and Go do (a newer node agent stays readable)', () => {
  // DelWorkload followed by field 15 (varint 7), which this schema does not have.
  assert.deepEqual(decodeZdsRequest(Buffer.from('1204120275317807', 'hex')), { kind: 'del', uid: 'u1' });
});
