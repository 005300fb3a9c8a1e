// The behaviour every ClusterBackend must show, run against each implementation (CONTRIBUTING.md,
// Adding a backend: one contract suite per interface). Workloads outside the mesh keep it fast; the mesh path has its
// own end-to-end test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import type { ClusterBackend } from '../backend.ts';
import { workloadKey } from '../events.ts';
import { buildHttpbin } from '../manifests/index.ts';
import type { ClusterObject } from '../manifests/index.ts';

type After = { after: (fn: () => Promise<void>) => void };
const HTTPBIN = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;

export interface ContractSubject {
  /** A new backend (not up); anything it needs torn down is registered on `t`. */
  create(t: After): Promise<ClusterBackend>;
  /** Whether it sees the signals a container gets (capabilities.ts, containerSignals). */
  seesSignals: boolean;
  /** httpbin's Deployment changed into something this backend refuses, and the message saying why. */
  unrunnable: (deployment: ClusterObject) => { object: ClusterObject; message: RegExp };
}

export function describeBackendContract(name: string, subject: ContractSubject): void {
  const start = async (t: After, objects: ClusterObject[]): Promise<ClusterBackend> => {
    const backend = await subject.create(t);
    t.after(() => backend.close());
    await backend.up();
    await backend.apply(objects);
    await backend.waitForReady({ timeoutMs: 15_000 });
    return backend;
  };
  const podsOf = (b: ClusterBackend) => b.addresses().pods.filter((p) => p.owner === 'deployment/httpbin');

  describe(`ClusterBackend contract: ${name}`, () => {
    it('passes its preflight on a machine that has what it needs, starting nothing', async (t) => {
      const backend = await subject.create(t);
      await backend.preflight();
      assert.deepEqual(backend.events(), []);
    });

    it('refuses an object it cannot run, applying nothing, with a BadInput error', async (t) => {
      const backend = await subject.create(t);
      t.after(() => backend.close());
      await backend.up();
      const [deployment, service] = buildHttpbin({ replicas: 1, mesh: 'off' });
      const broken = subject.unrunnable(deployment);
      await assert.rejects(
        () => backend.apply([service, broken.object]),
        (err: unknown) =>
          isHarnessError(err, ErrorCode.BadInput) && broken.message.test(err.message) && err.exitCode === 2,
      );
      assert.deepEqual(
        backend.addresses().services.filter((svc) => svc.name === 'httpbin'),
        [],
      );
      await assert.rejects(
        () => backend.rolloutRestart(HTTPBIN),
        (err: unknown) => isHarnessError(err, ErrorCode.BadInput),
      );
    });

    it('scales a Deployment up and down to zero', async (t) => {
      const backend = await start(t, buildHttpbin({ replicas: 1, mesh: 'off' }));
      assert.equal(podsOf(backend).length, 1);
      await backend.scale(HTTPBIN, 2);
      await backend.waitForReady({ timeoutMs: 10_000 });
      assert.equal(podsOf(backend).filter((p) => p.isReady).length, 2);
      await backend.scale(HTTPBIN, 0);
      await backend.waitForReady({ timeoutMs: 10_000 });
      assert.equal(podsOf(backend).length, 0);
    });

    it('replaces a deleted pod and reports its lifecycle in order on one clock', async (t) => {
      const backend = await start(t, buildHttpbin({ replicas: 1, mesh: 'off' }));
      const [victim] = podsOf(backend);
      assert.ok(victim);
      await backend.deletePod(victim.namespace, victim.name);
      await backend.waitForReady({ timeoutMs: 10_000 });
      const [replacement] = podsOf(backend);
      assert.ok(replacement && replacement.name !== victim.name && replacement.podIp !== victim.podIp);
      const key = `${victim.namespace}/${victim.name}`;
      const kinds = backend
        .events()
        .filter((e) => e.object === key)
        .map((e) => e.kind);
      const expected = ['pod-deleting', 'container-exited', 'pod-terminal', 'pod-removed'] as const;
      for (const kind of subject.seesSignals ? [...expected, 'sigterm' as const] : expected)
        assert.ok(kinds.includes(kind), `${kind} in ${kinds.join(', ')}`);
      const times = backend.events().map((e) => e.atMs);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'events are in clock order',
      );
    });

    it('rolls a Deployment out and reports both completion moments', async (t) => {
      const backend = await start(t, buildHttpbin({ replicas: 2, mesh: 'off' }));
      const before = podsOf(backend).map((p) => p.name);
      await backend.rolloutRestart(HTTPBIN);
      const result = await backend.waitForRollout(HTTPBIN, { timeoutMs: 15_000, untilOldPodsGone: true });
      assert.ok(result.startedAtMs < result.statusCompleteAtMs);
      assert.ok(result.statusCompleteAtMs <= (result.oldPodsGoneAtMs ?? NaN));
      const after = podsOf(backend).map((p) => p.name);
      assert.equal(after.length, 2);
      assert.ok(after.every((n) => !before.includes(n)));
      // Every backend names the workload the same way in its rollout events.
      const rolloutObjects = backend
        .events()
        .filter((e) => e.kind.startsWith('rollout-'))
        .map((e) => `${e.kind} ${e.object}`);
      assert.deepEqual(rolloutObjects, [
        `rollout-started ${workloadKey(HTTPBIN)}`,
        `rollout-status-complete ${workloadKey(HTTPBIN)}`,
        `rollout-old-pods-gone ${workloadKey(HTTPBIN)}`,
      ]);
      await backend.close();
      await backend.close(); // idempotent
    });
  });
}
