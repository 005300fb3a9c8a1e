import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planDaemonSetUpdate } from './daemonset-update.ts';
import type { DaemonNodePods } from './daemonset-update.ts';
import { isDeploymentRolledOut } from '../rollout-status.ts';
import { planRollingUpdate, resolveFenceposts } from './rolling-update.ts';

interface SimPod {
  name: string;
  rs: 'old' | 'new';
  ready: boolean;
  terminatingTicks?: number;
}

/**
 * A discrete rollout: each tick, pods created in an earlier tick become Ready and terminating pods
 * count down 2 ticks before they are gone; the controller syncs until nothing changes in a tick.
 */
function simulateRollout(replicas: number): {
  actions: string[];
  maxActive: number;
  maxAll: number;
  overlap: boolean;
} {
  const pods: SimPod[] = Array.from({ length: replicas }, (_, i) => ({
    name: `o${String(i + 1)}`,
    rs: 'old',
    ready: true,
  }));
  const spec = { old: replicas, new: 0 };
  const actions: string[] = [];
  let created = 0;
  let maxActive = replicas;
  let maxAll = replicas;
  let overlap = false;
  const active = (rs: 'old' | 'new'): SimPod[] =>
    pods.filter((p) => p.rs === rs && p.terminatingTicks === undefined);
  for (let tick = 0; tick < 100; tick++) {
    for (;;) {
      const plan = planRollingUpdate({
        replicas,
        maxSurge: '25%',
        maxUnavailable: '25%',
        newRs: { specReplicas: spec.new, available: active('new').filter((p) => p.ready).length },
        oldRss: [{ specReplicas: spec.old, available: active('old').filter((p) => p.ready).length }],
      });
      const oldTarget = plan.oldRsReplicas[0] ?? 0;
      if (plan.newRsReplicas === spec.new && oldTarget === spec.old) break;
      spec.new = plan.newRsReplicas;
      spec.old = oldTarget;
      // ReplicaSet controllers: create up to spec; delete not-ready first, then the newest.
      while (active('new').length < spec.new) {
        const name = `n${String(++created)}`;
        pods.push({ name, rs: 'new', ready: false });
        actions.push(`create ${name}`);
      }
      while (active('old').length > spec.old) {
        // ReplicaSet victim ranking: not Ready first; among equals (all Ready at once here) the first.
        const chosen = active('old').find((p) => !p.ready) ?? active('old')[0];
        if (!chosen) break;
        chosen.terminatingTicks = 2;
        actions.push(`delete ${chosen.name}`);
      }
      maxActive = Math.max(maxActive, active('old').length + active('new').length);
      maxAll = Math.max(maxAll, pods.length);
      const unreadyNew = active('new').filter((p) => !p.ready).length;
      if (unreadyNew >= 2 && pods.some((p) => p.terminatingTicks !== undefined)) overlap = true;
    }
    const status = {
      replicas,
      statusReplicas: active('old').length + active('new').length,
      updatedReplicas: active('new').length,
      availableReplicas:
        active('new').filter((p) => p.ready).length + active('old').filter((p) => p.ready).length,
    };
    if (isDeploymentRolledOut(status) && !pods.some((p) => p.terminatingTicks !== undefined)) break;
    for (const p of [...pods]) {
      if (p.terminatingTicks !== undefined && --p.terminatingTicks === 0) pods.splice(pods.indexOf(p), 1);
      else p.ready = true;
    }
  }
  return { actions, maxActive, maxAll, overlap };
}

describe('Deployment rolling update (maxSurge 25%, maxUnavailable 25%)', () => {
  it('resolves the fenceposts as Kubernetes rounds them', () => {
    assert.deepEqual(resolveFenceposts({ replicas: 1, maxSurge: '25%', maxUnavailable: '25%' }), {
      surge: 1,
      unavailable: 0,
    });
    assert.deepEqual(resolveFenceposts({ replicas: 3, maxSurge: '25%', maxUnavailable: '25%' }), {
      surge: 1,
      unavailable: 0,
    });
    assert.deepEqual(resolveFenceposts({ replicas: 4, maxSurge: '25%', maxUnavailable: '25%' }), {
      surge: 1,
      unavailable: 1,
    });
    assert.deepEqual(resolveFenceposts({ replicas: 2, maxSurge: 0, maxUnavailable: 0 }), {
      surge: 0,
      unavailable: 1,
    });
  });

  for (const replicas of [1, 2, 3]) {
    it(`replicas ${String(replicas)}: one new pod, then one old deleted, one at a time`, () => {
      const run = simulateRollout(replicas);
      const expected = Array.from({ length: replicas }, (_, i) => [
        `create n${String(i + 1)}`,
        `delete o${String(i + 1)}`,
      ]).flat();
      assert.deepEqual(run.actions, expected);
      assert.equal(run.maxActive, replicas + 1);
      assert.equal(run.overlap, false);
    });
  }

  it('replicas 4: an old pod is deleted before the first new one is ready, two new start while it drains', () => {
    const run = simulateRollout(4);
    assert.deepEqual(run.actions.slice(0, 3), ['create n1', 'delete o1', 'create n2']);
    assert.equal(run.actions.filter((a) => a.startsWith('create')).length, 4);
    assert.equal(run.actions.filter((a) => a.startsWith('delete')).length, 4);
    assert.equal(run.maxActive, 5);
    assert.equal(run.overlap, true);
  });
});

const SURGE = { onDelete: false, maxSurge: 1, maxUnavailable: 0 };

describe('DaemonSet surge update (maxSurge 1, maxUnavailable 0)', () => {
  it('surges on one node at a time and deletes the old pod only when the new one is available', () => {
    const old = (name: string) => [{ name, available: true }];
    assert.deepEqual(
      planDaemonSetUpdate(
        [
          { node: 'n1', old: old('z1'), updated: [], terminating: 0 },
          { node: 'n2', old: old('z2'), updated: [], terminating: 0 },
        ],
        SURGE,
      ),
      { createOn: ['n1'], deletePods: [] },
    );
    assert.deepEqual(
      planDaemonSetUpdate(
        [
          { node: 'n1', old: old('z1'), updated: [{ name: 'z3', available: false }], terminating: 0 },
          { node: 'n2', old: old('z2'), updated: [], terminating: 0 },
        ],
        SURGE,
      ),
      { createOn: [], deletePods: [] },
    );
    assert.deepEqual(
      planDaemonSetUpdate(
        [
          { node: 'n1', old: old('z1'), updated: [{ name: 'z3', available: true }], terminating: 0 },
          { node: 'n2', old: old('z2'), updated: [], terminating: 0 },
        ],
        SURGE,
      ),
      { createOn: ['n2'], deletePods: ['z1'] },
    );
  });

  it('replaces an unavailable old pod at once, outside the surge budget', () => {
    assert.deepEqual(
      planDaemonSetUpdate(
        [
          {
            node: 'n1',
            old: [{ name: 'z1', available: true }],
            updated: [{ name: 'z3', available: false }],
            terminating: 0,
          },
          { node: 'n2', old: [{ name: 'z2', available: false }], updated: [], terminating: 0 },
        ],
        SURGE,
      ),
      { createOn: ['n2'], deletePods: [] },
    );
  });
});

describe('DaemonSet update without surge (maxSurge 0, maxUnavailable 1; OnDelete)', () => {
  const UNAVAILABLE = { onDelete: false, maxSurge: 0, maxUnavailable: 1 };
  const ON_DELETE = { onDelete: true, maxSurge: 0, maxUnavailable: 1 };
  const old = (name: string) => [{ name, available: true }];
  it('deletes the old pod on one node, and creates its replacement only once the old one is gone', () => {
    const nodes = (n1: Partial<DaemonNodePods>) => [
      { node: 'n1', old: [], updated: [], terminating: 0, ...n1 },
      { node: 'n2', old: old('z2'), updated: [], terminating: 0 },
    ];
    assert.deepEqual(planDaemonSetUpdate(nodes({ old: old('z1') }), UNAVAILABLE), {
      createOn: [],
      deletePods: ['z1'],
    });
    assert.deepEqual(
      planDaemonSetUpdate(nodes({ terminating: 1 }), UNAVAILABLE),
      { createOn: [], deletePods: [] },
      'n1 still has its terminating pod: no new pod yet, and n2 waits (one node unavailable)',
    );
    assert.deepEqual(planDaemonSetUpdate(nodes({}), UNAVAILABLE), { createOn: ['n1'], deletePods: [] });
    assert.deepEqual(
      planDaemonSetUpdate(nodes({ updated: [{ name: 'z3', available: true }] }), UNAVAILABLE),
      { createOn: [], deletePods: ['z2'] },
    );
  });

  it('OnDelete deletes nothing; a node whose pod was deleted and is gone gets the new template', () => {
    assert.deepEqual(
      planDaemonSetUpdate(
        [
          { node: 'n1', old: old('z1'), updated: [], terminating: 0 },
          { node: 'n2', old: [], updated: [], terminating: 1 },
          { node: 'n3', old: [], updated: [], terminating: 0 },
        ],
        ON_DELETE,
      ),
      { createOn: ['n3'], deletePods: [] },
    );
  });
});
