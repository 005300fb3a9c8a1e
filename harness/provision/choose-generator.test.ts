import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import {
  createFakeBin,
  createToolsDir,
  fakeGoScript,
  fakeK6Script,
  installFake,
  modLineOf,
} from '../../lib/install/test/fake-bin.ts';
import { chooseGenerator } from './choose-generator.ts';
import { FORTIO } from './fortio.ts';

const quiet = { write: () => undefined };

test('auto takes a fitting k6 from PATH, else fortio; k6 is never built', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await createToolsDir(t);
  await installFake(bin, 'go', fakeGoScript({ modLine: modLineOf(FORTIO) }));
  const withoutK6 = await chooseGenerator('auto', { toolsDir, env: bin.env, ...quiet });
  assert.equal(withoutK6.kind, 'fortio');
  assert.match(withoutK6.why, /no k6 on PATH/);
  const k6 = await installFake(bin, 'k6', fakeK6Script('1.4.0'));
  const withK6 = await chooseGenerator('auto', { toolsDir, env: bin.env, ...quiet });
  assert.deepEqual(
    { kind: withK6.kind, path: withK6.path, version: withK6.version },
    { kind: 'k6', path: k6, version: '1.4.0' },
  );
  assert.equal((await chooseGenerator('fortio', { toolsDir, env: bin.env, ...quiet })).kind, 'fortio');
  // The temp folders' random suffixes can spell "k6": they are taken out before the match.
  const goCalls = (await bin.readCalls())
    .filter((c) => c.startsWith('go '))
    .map((c) => c.replaceAll(toolsDir, '<tools>').replaceAll(bin.dir, '<bin>'));
  assert.ok(goCalls.length > 0, 'fortio was looked at with go');
  assert.ok(!goCalls.some((c) => /k6/i.test(c)), `no go command names k6: ${goCalls.join('; ')}`);
});

test('--generator k6 without a fitting k6 is refused with what to do; K6_BINARY is honoured', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await createToolsDir(t);
  await installFake(bin, 'k6', fakeK6Script('0.49.0'));
  await assert.rejects(
    chooseGenerator('k6', { toolsDir, env: bin.env, ...quiet }),
    (err) =>
      isHarnessError(err, ErrorCode.ToolMissing) &&
      /reports v0\.49\.0, not >= 1\.0\.0 < 3\.0\.0/.test(err.message) &&
      /never builds or downloads k6/.test(err.message),
  );
  const other = join(toolsDir, 'my-k6');
  await installFake({ ...bin, dir: toolsDir }, 'my-k6', fakeK6Script('2.2.0'));
  const found = await chooseGenerator('k6', { toolsDir, env: { ...bin.env, K6_BINARY: other }, ...quiet });
  assert.equal(found.path, other);
  assert.match(found.why, /K6_BINARY/);
});
