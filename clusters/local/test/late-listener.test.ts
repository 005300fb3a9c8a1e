// A program that prints its "listening" line before it listens (go-httpbin does): the kubelet's first
// readiness probe must not race the listen, or the pod is Ready only a probe period (10 s) later.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLocalBackend } from '../index.ts';
import { buildHttpbin } from '../../manifests/index.ts';

const LATE = 'test/late-listener:1';

test('a pod whose app logs "listening" 300 ms before it listens is Ready within 4 s', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'late-listener-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const script = join(dir, 'late.mjs');
  await writeFile(
    script,
    `import { createServer } from 'node:http';
console.log('late listening on ' + process.env.HOST);
setTimeout(() => createServer((req, res) => res.end('ok')).listen(8080, process.env.HOST), 300);
process.on('SIGTERM', () => process.exit(0));
`,
  );
  const backend = createLocalBackend({
    nodeCount: 1,
    addressBlock: 216,
    images: new Map([
      [
        LATE,
        {
          entrypoint: script,
          startedPattern: /late listening on/,
          logsBeforeListening: true,
          podEnv: (pod) => ({ HOST: pod.appIp }),
        },
      ],
    ]),
  });
  t.after(() => backend.destroy(new Error('test ended')));
  await backend.up();
  await backend.apply(buildHttpbin({ replicas: 1, mesh: 'off', image: LATE }));
  const started = performance.now();
  await backend.waitForReady({ timeoutMs: 4000 });
  const ms = performance.now() - started;
  assert.ok(ms < 4000, `Ready after ${ms.toFixed(0)} ms`);
});
