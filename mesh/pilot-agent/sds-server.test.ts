// pilot-agent's SDS for its Envoy, over its unix socket: the two secrets by name, and a name it does
// not hold refused with NOT_FOUND, a status the client receives (not a stream left hanging).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import type { ClientDuplexStream, ServiceError } from '@grpc/grpc-js';
import { credentials, makeGenericClientConstructor, status } from '@grpc/grpc-js';
import { createCertificateAuthority } from '../pki/index.ts';
import { sdsService, TYPE_URL } from '../xds/index.ts';
import { startSdsServer } from './sds-server.ts';

const SdsClient = makeGenericClientConstructor(sdsService(), 'SecretDiscoveryService');

it('serves default and ROOTCA; an unknown name ends the stream NOT_FOUND', { timeout: 10_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sds-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await createCertificateAuthority();
  const cert = await ca.issue({ namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' });
  const sds = await startSdsServer({ socketPath: join(dir, 'sds.sock'), cert });
  t.after(() => sds.close());
  const client = new SdsClient(`unix://${sds.socketPath}`, credentials.createInsecure());
  t.after(() => {
    client.close();
  });
  // Each resource arrives packed (google.protobuf.Any): its type, counted.
  const ask = (names: string[]): Promise<{ types?: string[]; error?: ServiceError }> => {
    const call = (
      client as unknown as { StreamSecrets(): ClientDuplexStream<unknown, unknown> }
    ).StreamSecrets();
    return new Promise((resolve) => {
      call.once('data', (res: { resources?: { type_url?: string }[] }) => {
        resolve({ types: (res.resources ?? []).map((r) => r.type_url ?? '') });
        call.cancel();
      });
      call.once('error', (error: ServiceError) => {
        resolve({ error });
      });
      call.write({ resource_names: names });
    });
  };
  assert.deepEqual(await ask(['default', 'ROOTCA']), { types: [TYPE_URL.secret, TYPE_URL.secret] });
  assert.deepEqual(
    sds.served(),
    new Map([
      ['ROOTCA', 1],
      ['default', 1],
    ]),
  );
  const { error } = await ask(['default', 'nope']);
  assert.deepEqual([error?.code, error?.details], [status.NOT_FOUND, 'no secret named nope']);
});
