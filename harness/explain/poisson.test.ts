import assert from 'node:assert/strict';
import { it } from 'node:test';
import { poissonInterval } from './poisson.ts';

it('gives the central 95 % interval of a Poisson count', () => {
  // R: qpois(c(0.025, 0.975), lambda)
  assert.deepEqual(poissonInterval(5), [1, 10]);
  assert.deepEqual(poissonInterval(38), [26, 51]);
  assert.deepEqual(poissonInterval(0.5), [0, 2]);
  assert.deepEqual(poissonInterval(0), [0, 0]);
  const [low, high] = poissonInterval(10_000);
  assert.ok(low > 9_790 && low < 9_810 && high > 10_190 && high < 10_210, `${String(low)}-${String(high)}`);
});
