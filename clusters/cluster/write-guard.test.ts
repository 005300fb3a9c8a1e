// The one place a run's writes on a user's cluster are decided: its namespace yes, the consented
// ztunnel restart yes, anything else refused before it reaches the API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeApi } from '../kind/kube-api.ts';
import { guardWrites } from './write-guard.ts';

const RUN = 'ztunnel-harness-20261129-110000-abcd';

function recordingApi(): { api: KubeApi; sent: string[] } {
  const sent: string[] = [];
  const note = (what: string) => {
    sent.push(what);
    return Promise.resolve();
  };
  const api = {
    serverVersion: () => Promise.resolve('v1.35.0'),
    apply: (o) => note(`apply ${o.kind ?? ''} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`),
    readCrd: () => Promise.resolve(undefined),
    rolloutRestart: (ref) => note(`restart ${ref.namespace}/${ref.name}`).then(() => ({ generation: 2 })),
    scale: (ref) => note(`scale ${ref.namespace}/${ref.name}`),
    deletePod: (ns, name) => note(`delete pod ${ns}/${name}`),
    deleteWorkload: (ref) => note(`delete ${ref.namespace}/${ref.name}`),
    cordon: (node) => note(`cordon ${node}`),
    evictPod: (ns, name) => note(`evict ${ns}/${name}`).then(() => 'evicted' as const),
    readPdb: () => Promise.resolve(undefined),
    podLog: () => Promise.resolve(''),
    followPodLog: () => Promise.resolve(new AbortController()),
  } satisfies KubeApi;
  return { api, sent };
}

test("the run's namespace and what is in it: written", async () => {
  const { api, sent } = recordingApi();
  const guarded = guardWrites(api, { runNamespace: RUN, ztunnel: undefined });
  await guarded.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: RUN } });
  await guarded.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fortio', namespace: RUN } });
  await guarded.rolloutRestart({ kind: 'Deployment', namespace: RUN, name: 'httpbin' }, new Date());
  await guarded.scale({ kind: 'Deployment', namespace: RUN, name: 'httpbin' }, 3);
  await guarded.deletePod(RUN, 'httpbin-x');
  await guarded.deleteWorkload({ kind: 'Deployment', namespace: RUN, name: 'httpbin' });
  await guarded.evictPod(RUN, 'httpbin-y');
  assert.equal(sent.length, 7);
});

test('outside it: refused before anything is sent; the ztunnel restart only when consented', async () => {
  const { api, sent } = recordingApi();
  const ztunnel = { kind: 'DaemonSet', namespace: 'istio-system', name: 'ztunnel' } as const;
  const guarded = guardWrites(api, { runNamespace: RUN, ztunnel: undefined });
  const refusals: [string, () => Promise<unknown>][] = [
    ['apply Namespace /default', () => guarded.apply({ kind: 'Namespace', metadata: { name: 'default' } })],
    [
      'apply Gateway istio-system/gw',
      () => guarded.apply({ kind: 'Gateway', metadata: { name: 'gw', namespace: 'istio-system' } }),
    ],
    ['restart DaemonSet istio-system/ztunnel', () => guarded.rolloutRestart(ztunnel, new Date())],
    [
      'scale Deployment istio-system/istiod',
      () => guarded.scale({ kind: 'Deployment', namespace: 'istio-system', name: 'istiod' }, 0),
    ],
    ['delete pod istio-system/ztunnel-abc', () => guarded.deletePod('istio-system', 'ztunnel-abc')],
    [
      'delete Deployment team-a/web',
      () => guarded.deleteWorkload({ kind: 'Deployment', namespace: 'team-a', name: 'web' }),
    ],
    ['cordon node worker-1', () => guarded.cordon('worker-1', true)],
    ['evict pod team-a/web-x', () => guarded.evictPod('team-a', 'web-x')],
  ];
  for (const [what, call] of refusals)
    assert.throws(call, new RegExp(`refused to ${what}: a run changes nothing outside its namespace ${RUN}`));
  assert.deepEqual(sent, []);
  const consented = guardWrites(api, {
    runNamespace: RUN,
    ztunnel: { namespace: 'istio-system', name: 'ztunnel' },
  });
  await consented.rolloutRestart(ztunnel, new Date());
  assert.throws(
    () => consented.rolloutRestart({ ...ztunnel, name: 'istio-cni-node' }, new Date()),
    /refused/,
  );
  assert.throws(() => consented.deletePod('istio-system', 'ztunnel-abc'), /refused/);
  assert.throws(
    () => consented.deleteWorkload({ kind: 'DaemonSet', namespace: 'istio-system', name: 'istio-cni-node' }),
    /refused/,
  );
  assert.deepEqual(sent, ['restart istio-system/ztunnel']);
  // istio-cni's DaemonSet: restarted or deleted only where the cluster is the run's (kind with Istio's charts).
  const cni = { kind: 'DaemonSet', namespace: 'istio-system', name: 'istio-cni-node' } as const;
  const own = guardWrites(api, { runNamespace: RUN, ztunnel: undefined, istioCni: cni });
  await own.rolloutRestart(cni, new Date());
  await own.deleteWorkload(cni);
  assert.throws(() => own.rolloutRestart(ztunnel, new Date()), /refused/);
  assert.deepEqual(sent.slice(1), [
    'restart istio-system/istio-cni-node',
    'delete istio-system/istio-cni-node',
  ]);
});
