import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingCapabilities } from './capabilities.ts';

test('the bounding set of this project machines lacks CAP_SYS_RESOURCE (bit 24) only', () => {
  assert.deepEqual(missingCapabilities('000001fffeffffff', 40), ['CAP_SYS_RESOURCE']);
});

test('a full bounding set lacks nothing; bits above cap_last_cap are not asked about', () => {
  assert.deepEqual(missingCapabilities('000001ffffffffff', 40), []);
  assert.deepEqual(missingCapabilities('000000ffffffffff', 39), []);
  assert.deepEqual(missingCapabilities('000000ffffffffff', 40), ['CAP_CHECKPOINT_RESTORE']);
});

test('an empty bounding set lacks every capability up to the last', () => {
  assert.equal(missingCapabilities('0', 40).length, 41);
  assert.deepEqual(missingCapabilities('', 1), ['CAP_CHOWN', 'CAP_DAC_OVERRIDE']);
});
