import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { binaryDigest, istioZtunnelDockerfile, ISTIO_ZTUNNEL_PATH } from './istio-ztunnel-image.ts';

test("istio/ztunnel's image is named by the binary's content and pulls nothing", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'istio-ztunnel-image-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const binary = join(dir, 'ztunnel');
  await writeFile(binary, 'not really ztunnel');
  const digest = createHash('sha256').update('not really ztunnel').digest('hex').slice(0, 16);
  assert.equal(await binaryDigest(binary), digest);
  await writeFile(binary, 'another build');
  assert.notEqual(await binaryDigest(binary), digest);
  const dockerfile = istioZtunnelDockerfile('ztunnel-harness/rootfs-slim:abc');
  assert.match(dockerfile, /^FROM ztunnel-harness\/rootfs-slim:abc$/m);
  assert.match(dockerfile, new RegExp(`^COPY ztunnel ${ISTIO_ZTUNNEL_PATH}$`, 'm'));
  assert.match(dockerfile, new RegExp(`^ENTRYPOINT \\["${ISTIO_ZTUNNEL_PATH}"\\]$`, 'm'));
  assert.equal(dockerfile.match(/^FROM /gm)?.length, 1);
});
