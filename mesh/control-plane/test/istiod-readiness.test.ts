// istiod's readiness on kind (issue 33, prediction 6): /ready answers 503 until the
// istio-ca-root-cert ConfigMaps the proxies mount are written, 200 from then on, so nothing applied
// after istiod is Ready waits in ContainerCreating for them; a 5xx from the API server on that write
// is retried rather than ending istiod. The istiod process (mesh/control-plane/main.ts) against the
// API server double, through a proxy that holds back (then fails once) every ConfigMap write.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { startApiServerDouble } from '../../../clusters/kind/test/api-server-double.ts';
import { kindKubeconfig } from '../../../clusters/kind/test/fake-kind-docker.ts';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import { spawnNodeProcess } from '../../../lib/test/node-process.ts';
import { waitUntil } from '../../../lib/test/wait-until.ts';
import { READINESS_PATH } from '../readiness-server.ts';

const MAIN = join(PROJECT_ROOT, 'mesh', 'control-plane', 'main.ts');

/**
 * A proxy in front of the API server that forwards everything (watches stream through) except
 * ConfigMap creates, which wait for `release()`; the first one released is answered 503.
 */
async function startConfigMapGate(t: TestContext, target: string) {
  const held = Promise.withResolvers<undefined>();
  let seen = 0;
  let failuresLeft = 1;
  const server = createServer((req, res) => {
    const forward = (): void => {
      const upstream = request(
        `${target}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          // A watch's headers come before any event: client-node waits for them.
          res.flushHeaders();
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (!(req.method === 'POST' && /\/configmaps$/.test(req.url ?? ''))) {
      forward();
      return;
    }
    seen++;
    void held.promise.then(() => {
      if (failuresLeft-- <= 0) {
        forward();
        return;
      }
      req.resume();
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ kind: 'Status', code: 503, message: 'etcdserver: leader changed' }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    configMapWritesSeen: () => seen,
    release: () => {
      held.resolve(undefined);
    },
  };
}

async function getReady(address: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://${address}${READINESS_PATH}`);
  return { status: res.status, body: await res.text() };
}

test('istiod is Ready only once istio-ca-root-cert is written; a 5xx on the write is retried', async (t) => {
  const api = await startApiServerDouble();
  t.after(() => api.close());
  const gate = await startConfigMapGate(t, api.url);
  const dir = await mkdtemp(join(tmpdir(), 'istiod-ready-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'kubeconfig'), kindKubeconfig('ready', gate.url));
  const istiod = spawnNodeProcess(MAIN, {
    KUBECONFIG: join(dir, 'kubeconfig'),
    AMBIENT_TUNNEL: 'node',
    LOCAL_BIND_ADDRESS: '127.64.0.200',
    XDS_PORT: '0',
    CA_PORT: '0',
    READINESS_PORT: '0',
  });
  t.after(() => {
    if (!istiod.exited()) istiod.child.kill('SIGKILL');
  });
  const { lines } = istiod;
  const readiness = (): string | undefined =>
    lines.map((l) => /istiod serving readiness ready=(\S+)/.exec(l)?.[1]).find(Boolean);
  await waitUntil('readiness served', () => readiness() !== undefined || istiod.exited(), 15_000);
  const address = readiness() ?? '';
  assert.match(address, /^127\.64\.0\.200:\d+$/, lines.join('\n'));

  // Serving discovery and the CA already, the ConfigMap write held back: not Ready, and says why.
  await waitUntil(
    'ConfigMap write sent',
    () => gate.configMapWritesSeen() > 0 || istiod.exited(),
    15_000,
  ).catch((err: unknown) => assert.fail(`${String(err)}\n${lines.join('\n')}`));
  const before = await getReady(address);
  assert.deepEqual(before, {
    status: 503,
    body: 'not ready: waiting for the istio-ca-root-cert ConfigMap in istio-system\n',
  });

  gate.release();
  // Every 200 comes after both ConfigMaps exist: checked at the first one.
  let first: { status: number; body: string } | undefined;
  const end = performance.now() + 10_000;
  while (performance.now() < end && !istiod.exited()) {
    const answer = await getReady(address);
    if (answer.status === 200) {
      first = answer;
      assert.ok(api.get('configmaps', 'istio-system', 'istio-ca-root-cert'), 'istio-system ConfigMap');
      assert.ok(api.get('configmaps', 'default', 'istio-ca-root-cert'), 'default ConfigMap');
      break;
    }
    assert.equal(answer.status, 503);
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(first, { status: 200, body: 'ready\n' }, lines.join('\n'));
  const retry = lines.find((l) => /writing the root ConfigMap failed, retrying/.test(l)) ?? '';
  assert.match(
    retry,
    /namespace=istio-system .*attempt=1 .*API server answered 503: etcdserver: leader changed/,
  );
  assert.ok(lines.some((l) => /istiod listening /.test(l)));

  istiod.child.kill('SIGTERM');
  const result = await istiod.child;
  assert.equal(result.exitCode, 0, String(result.stderr));
});
