import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from '../config/test/experiment-fixtures.ts';
import { CLUSTER_SCENARIOS } from '../run/scenarios/index.ts';
import { experimentOptions } from './experiment-options.ts';
import { defaultParams } from './params.ts';

test('defaultParams gives what a command line naming only the scenario resolves to', async () => {
  for (const scenario of Object.values(CLUSTER_SCENARIOS))
    assert.deepEqual(
      defaultParams(experimentOptions(), scenario),
      await resolve(['--scenario', scenario.name]),
      scenario.name,
    );
});
