import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from '../config/test/experiment-fixtures.ts';
import { DEFAULT_BACKEND } from '../../clusters/registry.ts';
import { backendsRunning, CLUSTER_SCENARIOS } from '../run/scenarios/index.ts';
import { experimentOptions } from './experiment-options.ts';
import { defaultParams } from './params.ts';

test("Istio's restart tests judge their success rate, no count; a user's flags replace or add", async () => {
  const service = await resolve(['--scenario', 'istio-service-restart']);
  assert.equal(service.maxFailed, undefined);
  assert.deepEqual(service.thresholds, ['success_rate>=1']);
  assert.deepEqual(
    [service.qps, service.connections, service.timeoutS, service.path, service.replicas],
    [25, 1, 5, '/delay/0.01', 2],
  );
  const ztunnel = await resolve(['--scenario', 'istio-ztunnel-restart']);
  assert.deepEqual([ztunnel.thresholds, ztunnel.qps], [['success_rate>=0.9'], 20]);
  const own = await resolve([
    '--scenario',
    'istio-ztunnel-restart',
    '--threshold',
    'success_rate>=0.99',
    '--max-failed',
    '3',
  ]);
  assert.deepEqual([own.thresholds, own.maxFailed], [['success_rate>=0.99'], 3]);
  // The other scenarios keep their counts and no threshold.
  const e2 = await resolve(['--scenario', 'workload-rollout']);
  assert.deepEqual([e2.maxFailed, e2.thresholds], [0, []]);
});

test('defaultParams gives what a command line naming only the scenario resolves to', async () => {
  // On the default backend: the scenarios it runs (the gateway's rollout is kind's).
  for (const scenario of Object.values(CLUSTER_SCENARIOS).filter((s) =>
    backendsRunning(s).includes(DEFAULT_BACKEND),
  ))
    assert.deepEqual(
      defaultParams(experimentOptions(), scenario),
      await resolve(['--scenario', scenario.name]),
      scenario.name,
    );
});
