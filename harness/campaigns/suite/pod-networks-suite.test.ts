// The side-by-side suite (suites/pod-networks.yaml): each row runs the pod network and ztunnel it
// names, and a row this machine cannot run says why in its place instead of failing the suite.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from '../../config/test/experiment-fixtures.ts';
import { entryUnavailable } from './entry-availability.ts';
import { entryArgs } from './run-suite.ts';
import { loadSuite } from './suite-file.ts';

const suite = await loadSuite('pod-networks');

test('suites/pod-networks.yaml: loopback and namespace rows of E1, E2, E3, and E1, E2 with istio/ztunnel', async () => {
  const ran = await Promise.all(
    suite.entries.map(async (e) => {
      const p = await resolve(entryArgs(e, 1));
      return `${p.scenario} ${p.podNetwork} ${p.ztunnelImpl}`;
    }),
  );
  assert.deepEqual(ran, [
    'workload-rollout loopback ours',
    'workload-rollout netns ours',
    'workload-rollout netns istio',
    'long-lived loopback ours',
    'long-lived netns ours',
    'ztunnel-upgrade loopback ours',
    'ztunnel-upgrade netns ours',
    'ztunnel-upgrade netns istio-shared',
  ]);
});

test('an entry this machine cannot run is named with the reason: root, then the binary', () => {
  const byConfiguration = (c: string) => {
    const found = suite.entries.find((e) => e.configuration === c);
    assert.ok(found, c);
    return found;
  };
  const loopback = byConfiguration('E2 ours, loopback');
  const netns = byConfiguration('E2 ours, pod namespaces');
  const istio = byConfiguration('E2 istio/ztunnel dedicated, pod namespaces');
  assert.equal(entryUnavailable(loopback, {}, 1000), '');
  assert.equal(entryUnavailable(netns, {}, 0), '');
  assert.match(entryUnavailable(netns, {}, 1000), /not available: --netns needs root/);
  assert.match(entryUnavailable(istio, {}, 1000), /--ztunnel-impl istio needs root/);
  assert.match(entryUnavailable(istio, {}, 0), /not available: istio\/ztunnel needs ZTUNNEL_BINARY/);
  assert.match(
    entryUnavailable(istio, { ZTUNNEL_BINARY: '/no/such/ztunnel', ZTUNNEL_TEST_ROOT: '/tmp' }, 0),
    /ZTUNNEL_BINARY \/no\/such\/ztunnel does not exist/,
  );
  const shared = byConfiguration('E1 istio/ztunnel shared, pod namespaces, c=100');
  assert.match(entryUnavailable(shared, {}, 1000), /--ztunnel-impl istio-shared needs root/);
  assert.match(entryUnavailable(shared, {}, 0), /not available: istio\/ztunnel needs ZTUNNEL_BINARY/);
});
