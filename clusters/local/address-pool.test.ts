import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { checkLoopbackBlock, createAddressPool } from './address-pool.ts';

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
