import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import { decodeWorkload, encodeAddress, ipBytes } from './workload-protos.ts';
import type { WorkloadMessage } from './workload-protos.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

// Expected bytes worked out by hand from the protobuf wire format (tag = field << 3 | wire type; 0
// varint, 2 length-delimited; a tag above 15 takes two varint bytes) and workload.proto's numbers,
// independently of protobufjs: what prost and Go write (fields in number order, proto3 defaults
// left out, a map entry as a message {key = 1, value = 2}).
const WORKLOAD: WorkloadMessage = {
  uid: 'u',
  name: 'n',
  namespace: 'ns',
  addresses: [Uint8Array.from([10, 0, 0, 1])],
  tunnelProtocol: 'HBONE',
  trustDomain: '',
  serviceAccount: '',
  node: 'x',
  workloadType: 'DEPLOYMENT',
  status: 'UNHEALTHY',
  clusterId: '',
  services: { 'ns/h': { ports: [{ servicePort: 80, targetPort: 8080 }] } },
};
const WORKLOAD_BYTES =
  // Address.workload (1, LEN 43)
  '0a2b' +
  // name (1) "n", namespace (2) "ns", addresses (3) 10.0.0.1 as 4 bytes
  '0a016e' +
  '12026e73' +
  '1a040a000001' +
  // tunnel_protocol (5, varint) HBONE = 1; node (9: 0x4a) "x"; status (17: 0x88 0x01) UNHEALTHY = 1
  '2801' +
  '4a0178' +
  '880101' +
  // uid (20: 0xa2 0x01) "u"
  'a2010175' +
  // services (22: 0xb2 0x01, LEN 15): entry { key (1) "ns/h", value (2, LEN 7) PortList
  //   { ports (1, LEN 5) Port { service_port (1) 80, target_port (2) 8080 = varint 90 3f } } }
  'b2010f' +
  '0a046e732f68' +
  '1207' +
  '0a05' +
  '0850' +
  '10903f';

test('an Address holding a Workload encodes to the schema wire bytes', () => {
  assert.equal(hex(encodeAddress({ workload: WORKLOAD })), WORKLOAD_BYTES);
  const back = decodeWorkload(Buffer.from(WORKLOAD_BYTES, 'hex'));
  assert.equal(back.uid, 'u');
  assert.equal(back.node, 'x');
  assert.equal(back.status, 'UNHEALTHY');
  assert.equal(back.tunnelProtocol, 'HBONE');
  assert.deepEqual(back.services, WORKLOAD.services);
  assert.equal(back.addresses.length, 1);
  assert.equal(hex(back.addresses[0] ?? new Uint8Array()), '0a000001');
});

test('an Address holding a Service is oneof member 2; an empty network is left out', () => {
  const bytes = encodeAddress({
    service: {
      name: 'h',
      namespace: 'ns',
      hostname: 'h.ns',
      addresses: [{ network: '', address: Uint8Array.from([10, 96, 0, 1]) }],
      ports: [{ servicePort: 80, targetPort: 8080 }],
    },
  });
  // service (2, LEN 28) { name (1) "h", namespace (2) "ns", hostname (3) "h.ns",
  //   addresses (4, LEN 6) { address (2) 4 bytes }, ports (5, LEN 5) Port { 80, 8080 } }
  assert.equal(
    hex(bytes),
    '121c' + '0a0168' + '12026e73' + '1a04682e6e73' + '2206' + '12040a600001' + '2a05' + '085010903f',
  );
});

test('ipBytes: 4 bytes for IPv4, 16 for IPv6 (:: expanded); anything else is refused', () => {
  assert.equal(hex(ipBytes('127.10.0.5')), '7f0a0005');
  assert.equal(hex(ipBytes('fd00::1')), 'fd000000000000000000000000000001');
  assert.equal(hex(ipBytes('::')), '0'.repeat(32));
  assert.throws(
    () => ipBytes('10.0.0'),
    (err) => isHarnessError(err) && /got "10\.0\.0"/.test(err.message),
  );
  assert.throws(
    () => ipBytes('::ffff:1.2.3.4'),
    (err) => isHarnessError(err),
  );
});
