import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createManualClock } from '../../../lib/index.ts';
import type { LocalCluster } from './local-cluster.ts';
import { LOCAL_UP_STEPS, runLocalUpSteps } from './steps.ts';

test('the bring-up steps run in their listed order, each timed on the run clock', async () => {
  const clock = createManualClock();
  const ran: string[] = [];
  const cluster = { clock, log: { debug: () => undefined } } as unknown as LocalCluster;
  const step = (name: string, ms: number) => ({
    name,
    run: async () => {
      ran.push(name);
      await clock.advance(ms);
    },
  });
  const times = await runLocalUpSteps(cluster, [step('a', 5), step('b', 0), step('c', 12)]);
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.deepEqual(times, [
    { name: 'a', ms: 5 },
    { name: 'b', ms: 0 },
    { name: 'c', ms: 12 },
  ]);
});

test('a step that fails stops the bring-up there: the later steps do not run', async () => {
  const clock = createManualClock();
  const ran: string[] = [];
  const cluster = { clock, log: { debug: () => undefined } } as unknown as LocalCluster;
  const steps = [
    { name: 'ok', run: () => Promise.resolve(void ran.push('ok')) },
    { name: 'broken', run: () => Promise.reject(new Error('no')) },
    { name: 'after', run: () => Promise.resolve(void ran.push('after')) },
  ];
  await assert.rejects(runLocalUpSteps(cluster, steps), /no/);
  assert.deepEqual(ran, ['ok']);
});

test('the control plane comes before the kubelets it serves, the controllers last', () => {
  const names = LOCAL_UP_STEPS.map((s) => s.name);
  assert.ok(names.indexOf('control plane') < names.indexOf('node agents and kubelets'));
  assert.equal(names.at(-1), 'controllers');
});
