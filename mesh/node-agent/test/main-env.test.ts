// istio-cni's node agent process refuses a configuration that means nothing before it touches the
// node (no iptables chain, no socket): exit 2 and what to set.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';

const main = join(import.meta.dirname, '..', 'main.ts');
const start = (env: Record<string, string>) =>
  execa(process.execPath, [main], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    extendEnv: false,
    reject: false,
    timeout: 20_000,
  });

test('the node agent refuses an unknown ZTUNNEL_PROTOCOL, and a missing NODE_NAME, with exit 2', async () => {
  const bad = await start({ NODE_NAME: 'node-1', ZTUNNEL_PROTOCOL: 'grpc' });
  assert.equal(bad.exitCode, 2);
  assert.match(bad.stderr, /Expected ZTUNNEL_PROTOCOL to be ours or zds, got "grpc"/);
  const noNode = await start({ ZTUNNEL_PROTOCOL: 'zds' });
  assert.equal(noNode.exitCode, 2);
  assert.match(noNode.stderr, /Expected NODE_NAME to be set/);
});
