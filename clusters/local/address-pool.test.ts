import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { checkLoopbackBlock, createAddressPool, parseAddressBlock } from './address-pool.ts';

test('preflight: a loopback block this machine has passes; an address it lacks is bad input saying what to do', async () => {
  await checkLoopbackBlock(createAddressPool(216));
  // 192.0.2.0/24 is TEST-NET-1: no interface here has it, as 127.x.0.1 on a Mac without aliases.
  const missing = { ...createAddressPool(216), node: () => '192.0.2.1' };
  await assert.rejects(
    () => checkLoopbackBlock(missing),
    (err: unknown) =>
      isHarnessError(err, ErrorCode.BadInput) &&
      err.exitCode === 2 &&
      /able to use 192\.0\.2\.1/.test(err.message) &&
      /EADDRNOTAVAIL/.test(err.message) &&
      /--backend kind/.test(err.message),
  );
});

test('--local-address-block: 1-254 taken; 0, 255, a fraction or a word refused as bad input naming the flag', () => {
  assert.equal(parseAddressBlock('1'), 1);
  assert.equal(parseAddressBlock('254'), 254);
  for (const raw of ['0', '255', '12.5', 'ten', '', '-3'])
    assert.throws(
      () => parseAddressBlock(raw),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.BadInput) &&
        /--local-address-block/.test(err.message) &&
        /1-254/.test(err.message),
      raw,
    );
});
