// What a drain evicts from a node and the budget it keeps on each drained Deployment; the sequence
// itself (cordon, evict, ztunnel replaced, uncordon) runs on a real kind cluster
// (docs/findings/2026-11-29-faults-since-the-seeds.md, --ztunnel-update drain).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { drainBudget, podsToEvict } from './drain-nodes.ts';

function pod(
  name: string,
  node: string,
  extra: { meshed?: boolean; owner?: string; load?: boolean; deleting?: boolean } = {},
): V1Pod {
  const owner = extra.owner ?? 'ReplicaSet/httpbin-abc';
  const [kind = '', ownerName = ''] = owner.split('/');
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: {
        'pod-template-hash': 'abc',
        ...(extra.meshed === false ? {} : { 'istio.io/dataplane-mode': 'ambient' }),
        ...(extra.load ? { 'ztunnel-harness/load': 'true' } : {}),
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind, name: ownerName, uid: '1', controller: true }],
      ...(extra.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    spec: { nodeName: node, containers: [] },
  };
}

test("a node's drain evicts its meshed pods only: not a DaemonSet's, not another node's, not ours, not one going already", () => {
  const pods = [
    pod('httpbin-1', 'w1'),
    pod('httpbin-2', 'w2'),
    pod('httpbin-3', 'w1', { deleting: true }),
    pod('ztunnel-x', 'w1', { owner: 'DaemonSet/ztunnel' }),
    pod('gateway-1', 'w1', { meshed: false, owner: 'ReplicaSet/istio-ingressgateway-abc' }),
    pod('fortio', 'w1', { meshed: false, owner: '/', load: true }),
    pod('client-1', 'w1', { owner: 'ReplicaSet/client-abc' }),
  ];
  assert.deepEqual(
    podsToEvict(pods, 'w1').map((p) => p.metadata?.name),
    ['httpbin-1', 'client-1'],
  );
  assert.deepEqual(
    podsToEvict(pods, 'w2').map((p) => p.metadata?.name),
    ['httpbin-2'],
  );
});

test("the budget a drain keeps: one of the Deployment's pods away at a time, on the Deployment's own selector", () => {
  const deployment: V1Deployment = {
    metadata: { name: 'httpbin', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'httpbin' } }, template: {} },
  };
  assert.deepEqual(drainBudget(deployment), {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'httpbin', namespace: 'default' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'httpbin' } } },
  });
});
