// ztunnel's settings with istiod's protocols (XDS_ADDRESS an https:// URL) that cannot work: exit 2
// at once with what is wrong, before any connection (a real ztunnel process).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { spawnZtunnel } from './ztunnel-process.ts';

async function istiodEnv(t: { after(fn: () => Promise<void>): void }): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'ztunnel-env-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'root-cert.pem'), 'ROOT');
  await writeFile(join(dir, 'istio-token'), 'TOKEN');
  return {
    NODE_NAME: 'worker',
    INSTANCE_IP: '127.0.0.1',
    POD_NAME: 'ztunnel-x1',
    POD_NAMESPACE: 'istio-system',
    XDS_ADDRESS: 'https://127.0.0.1:1',
    CA_ADDRESS: 'https://127.0.0.1:1',
    CA_ROOT_CA: join(dir, 'root-cert.pem'),
    AUTH_TOKEN: join(dir, 'istio-token'),
  };
}

for (const [what, extra, message] of [
  [
    'no zds-relay for istio-cni',
    { ZDS_RELAY: '/nonexistent/zds-relay' },
    /Expected ZDS_RELAY to name the zds-relay binary/,
  ],
  [
    'a drain strategy',
    { DRAIN_STRATEGY: 'goaway-on-shutdown-start', ZDS_RELAY: process.execPath },
    /Expected DRAIN_STRATEGY none with istiod's protocols \(XDS_ADDRESS https:\/\/127\.0\.0\.1:1\), got goaway-on-shutdown-start/,
  ],
] as const)
  test(`istiod's protocols with ${what}: exit 2 naming it`, async (t) => {
    const z = spawnZtunnel('ztunnel-x1', { ...(await istiodEnv(t)), ...extra });
    const result = await z.child;
    assert.equal(result.exitCode, 2);
    assert.match(String(result.stderr), message);
  });
