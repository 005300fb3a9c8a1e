import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSystemClock } from '../../lib/index.ts';
import { ADDRESS_BLOCK_KEY } from './address-pool.ts';
import { LOCAL_PROVIDER } from './provider.ts';

const blockOf = async (settings: Readonly<Record<string, unknown>>): Promise<unknown> =>
  (await LOCAL_PROVIDER.create({}, { clock: createSystemClock(), settings })).describe()['address_block'];

test('the loopback block is chosen once, when the settings are settled: the backend preflighted and the one brought up take the same block', async () => {
  const settle = LOCAL_PROVIDER.settle;
  assert.ok(settle);
  const settled = settle({});
  const block = settled[ADDRESS_BLOCK_KEY];
  assert.equal(typeof block, 'number');
  // The plan's probe and the run's backend, both from the settled settings.
  assert.equal(await blockOf(settled), block);
  assert.equal(await blockOf(settled), block);
  // A block the user gave is kept as given.
  assert.deepEqual(settle({ [ADDRESS_BLOCK_KEY]: 7 }), { [ADDRESS_BLOCK_KEY]: 7 });
  assert.equal(await blockOf({ [ADDRESS_BLOCK_KEY]: 7 }), 7);
});
