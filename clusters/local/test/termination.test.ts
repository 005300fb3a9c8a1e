import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { LifecycleEvent } from '../../events.ts';
import { buildHttpbin, IMAGES } from '../../manifests/index.ts';

/** An app that ignores SIGTERM (the kubelet's SIGKILL path): the fault server's test mode. */
const IGNORES_SIGTERM = { env: { IGNORE_SIGTERM: '1' }, image: IMAGES.faultServer };
import { CLOSE_GRACE_MS, createLocalBackend } from '../local-backend.ts';

const at = (events: readonly LifecycleEvent[], kind: LifecycleEvent['kind']): number => {
  const found = events.find((e) => e.kind === kind);
  assert.ok(found, `expected a ${kind} event in ${events.map((e) => e.kind).join(', ')}`);
  return found.atMs;
};

/** One httpbin pod outside the mesh, deleted; returns its events relative to the deletion. */
async function deleteOnePod(
  t: { after: (fn: () => Promise<void>) => void },
  httpbin: Parameters<typeof buildHttpbin>[0],
  addressBlock: number,
): Promise<Map<string, number>> {
  const backend = createLocalBackend({ nodeCount: 1, addressBlock });
  t.after(() => backend.close());
  await backend.up();
  await backend.apply(buildHttpbin(httpbin));
  await backend.waitForReady({ timeoutMs: 10_000 });
  const [pod] = backend.addresses().pods;
  assert.ok(pod);
  const key = `${pod.namespace}/${pod.name}`;
  await backend.deletePod(pod.namespace, pod.name);
  const removed = Promise.withResolvers<undefined>();
  backend.onEvent((e) => {
    if (e.kind === 'pod-removed' && e.object === key) removed.resolve(undefined);
  });
  await removed.promise;
  const events = backend.events().filter((e) => e.object === key);
  const t0 = at(events, 'pod-deleting');
  const kinds = [
    'prestop-started',
    'sigterm',
    'sigkill',
    'container-exited',
    'pod-terminal',
    'pod-removed',
  ] as const;
  return new Map(kinds.flatMap((k) => (events.some((e) => e.kind === k) ? [[k, at(events, k) - t0]] : [])));
}

describe('pod termination (kubelet killContainer)', () => {
  it('preStop sleep 3 s + grace 5 s, SIGTERM ignored: SIGKILL ~5 s after deletion, not 8 s', async (t) => {
    const rel = await deleteOnePod(
      t,
      { replicas: 1, mesh: 'off', graceS: 5, preStopSleepS: 3, ...IGNORES_SIGTERM },
      211,
    );
    const sigterm = rel.get('sigterm') ?? NaN;
    const sigkill = rel.get('sigkill') ?? NaN;
    assert.ok(sigterm >= 3000 && sigterm < 3400, `SIGTERM after the 3 s preStop, got ${String(sigterm)} ms`);
    // Grace counts from the start of preStop; 5 s - 3 s leaves 2 s, which is also the 2 s minimum.
    assert.ok(sigkill >= 5000 && sigkill < 5400, `SIGKILL ~5 s after deletion, got ${String(sigkill)} ms`);
    assert.ok((rel.get('container-exited') ?? 0) > sigkill);
    assert.ok((rel.get('pod-removed') ?? 0) >= (rel.get('pod-terminal') ?? Infinity));
  });

  it('a preStop longer than the grace period is cut at the grace period, then SIGKILL after the 2 s minimum', async (t) => {
    const rel = await deleteOnePod(
      t,
      { replicas: 1, mesh: 'off', graceS: 1, preStopSleepS: 10, ...IGNORES_SIGTERM },
      212,
    );
    const sigterm = rel.get('sigterm') ?? NaN;
    const sigkill = rel.get('sigkill') ?? NaN;
    assert.ok(
      sigterm >= 1000 && sigterm < 1400,
      `preStop cut at the 1 s grace, got SIGTERM at ${String(sigterm)} ms`,
    );
    assert.ok(
      sigkill - sigterm >= 2000 && sigkill - sigterm < 2300,
      `SIGKILL 2 s after preStop, got ${String(sigkill - sigterm)} ms`,
    );
  });

  it('an app that exits on SIGTERM is never SIGKILLed', async (t) => {
    const rel = await deleteOnePod(t, { replicas: 1, mesh: 'off', graceS: 5 }, 213);
    assert.equal(rel.has('prestop-started'), false);
    assert.ok((rel.get('sigterm') ?? NaN) < 400);
    assert.equal(rel.has('sigkill'), false);
    assert.ok((rel.get('container-exited') ?? Infinity) < 2000);
  });
});

describe('cluster teardown: close() lets pods stop, destroy() kills them', () => {
  /** One httpbin pod; tears the cluster down with `how`; its last log lines and how long it took. */
  async function tearDown(how: 'close' | 'destroy', addressBlock: number, env: Record<string, string> = {}) {
    // Logs kept outside the cluster's own folder, which teardown removes.
    const logDir = await mkdtemp(join(tmpdir(), 'teardown-'));
    after(() => rm(logDir, { recursive: true, force: true }));
    const backend = createLocalBackend({ nodeCount: 1, addressBlock, logDir });
    // Whatever fails below, no pod is left running (destroy is idempotent; a test that throws before
    // its teardown would otherwise leave the app alive and the test process with it).
    after(() => backend.destroy(new Error('test ended')));
    await backend.up();
    await backend.apply(
      buildHttpbin({
        replicas: 1,
        mesh: 'off',
        env,
        ...(env['IGNORE_SIGTERM'] ? { image: IMAGES.faultServer } : {}),
      }),
    );
    await backend.waitForReady({ timeoutMs: 10_000 });
    const [pod] = backend.addresses().pods;
    assert.ok(pod);
    const started = performance.now();
    await (how === 'close' ? backend.close() : backend.destroy(new Error('test')));
    return { ms: performance.now() - started, log: backend.logs(`${pod.namespace}/${pod.name}`).join('\n') };
  }

  it('close(): SIGTERM, and the app shuts down by its own handler', async () => {
    const { log } = await tearDown('close', 213);
    // go-httpbin's own line on SIGTERM (httpbin/cmd/cmd.go listenAndServeGracefully).
    assert.match(log, /msg="shutting down \.\.\."/);
  });

  it('destroy(): SIGKILL at once, no handler runs', async () => {
    const { log } = await tearDown('destroy', 214);
    assert.match(log, /go-httpbin listening on/);
    assert.doesNotMatch(log, /shutting down/);
  });

  it('close() with a pod that ignores SIGTERM: SIGKILL after the 2 s grace, not its 30 s', async () => {
    const { ms, log } = await tearDown('close', 215, { IGNORE_SIGTERM: '1' });
    assert.match(log, /received SIGTERM, ignoring it/);
    assert.ok(ms >= CLOSE_GRACE_MS && ms < CLOSE_GRACE_MS + 3000, `took ${ms.toFixed(0)} ms`);
  });
});
