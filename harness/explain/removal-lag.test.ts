import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LifecycleEvent, LifecycleEventKind } from '../../clusters/events.ts';
import { medianLagMs, removalLags } from './removal-lag.ts';

const at = (atMs: number, kind: LifecycleEventKind, object: string): LifecycleEvent => ({
  atMs,
  kind,
  source: 'container-log',
  object,
});

test("local: each terminating pod's lag is its exit to the control plane's push of its removal", () => {
  const events = [
    at(0, 'pod-deleting', 'default/a'),
    at(0, 'pod-deleting', 'default/b'),
    at(500, 'container-exited', 'default/a'),
    at(520, 'container-exited', 'default/b'),
    // Another pod's push comes first: each pod reads its own.
    at(900, 'workload-removed-pushed', 'default/b'),
    at(1000, 'workload-removed-pushed', 'default/a'),
  ];
  assert.deepEqual(removalLags(events), [
    { pod: 'default/a', exitedAtMs: 500, lagMs: 500 },
    { pod: 'default/b', exitedAtMs: 520, lagMs: 380 },
  ]);
  assert.equal(medianLagMs(removalLags(events)), 440);
});

test("kind: the first removal any ztunnel logs after the pod's exit; mesh pods and pods never deleted are not the workload's", () => {
  const events = [
    at(0, 'pod-deleting', 'default/a'),
    at(100, 'address-removal-received', 'istio-system/ztunnel-1'),
    at(500, 'container-exited', 'default/a'),
    at(630, 'address-removal-received', 'istio-system/ztunnel-2'),
    at(640, 'address-removal-received', 'istio-system/ztunnel-1'),
    // An upgrade's old ztunnel, and a container that exited without a deletion (a restart).
    at(700, 'pod-deleting', 'istio-system/ztunnel-1'),
    at(800, 'container-exited', 'istio-system/ztunnel-1'),
    at(900, 'container-exited', 'default/c'),
    // A deleted pod whose removal never showed: no lag for it.
    at(1000, 'pod-deleting', 'default/d'),
    at(1500, 'container-exited', 'default/d'),
  ];
  assert.deepEqual(removalLags(events), [{ pod: 'default/a', exitedAtMs: 500, lagMs: 130 }]);
  assert.equal(medianLagMs([]), undefined);
});
