import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { chooseGenerator } from './choose-generator.ts';
import { FORTIO } from './fortio.ts';
import { GO_HTTPBIN } from './go-httpbin.ts';
import { ensureGoTool, pinnedToolPath } from './go-tool.ts';
import { createFakeBin, fakeGoScript, fakeK6Script, installFake } from './test/fake-bin.ts';

async function newToolsDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tools-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
const quiet = { write: () => undefined };
const modLineOf = (spec: typeof FORTIO): string => `${spec.module}\tv${spec.version}\t${spec.moduleSum}`;

test('go install builds the pinned version into the tools folder; the next call finds it there', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  await installFake(bin, 'go', fakeGoScript({ modLine: modLineOf(GO_HTTPBIN) }));
  const built = await ensureGoTool(GO_HTTPBIN, { toolsDir, env: bin.env, ...quiet });
  assert.deepEqual(built, {
    name: 'go-httpbin',
    path: pinnedToolPath(GO_HTTPBIN, toolsDir),
    version: '2.26.0',
    source: 'go',
  });
  assert.ok(
    (await bin.readCalls()).includes('go install github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin@v2.26.0'),
  );
  const again = await ensureGoTool(GO_HTTPBIN, { toolsDir, env: bin.env, ...quiet });
  assert.equal(again.source, 'tools');
  assert.equal((await bin.readCalls()).filter((c) => c.startsWith('go install')).length, 1);
});

test('a binary whose module hash is not the pinned one is refused and nothing is installed', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  await installFake(
    bin,
    'go',
    fakeGoScript({ modLine: `${FORTIO.module}\tv${FORTIO.version}\th1:tampered=` }),
  );
  await assert.rejects(
    ensureGoTool(FORTIO, { toolsDir, env: bin.env, ...quiet }),
    (err) => isHarnessError(err, ErrorCode.ProvisionFailed) && /h1:tampered=/.test(err.message),
  );
  assert.ok(!existsSync(pinnedToolPath(FORTIO, toolsDir)));
  assert.deepEqual(await readdir(toolsDir), [], 'the scratch folder is removed');
});

test('without go the error says what to install (exit 2)', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  await assert.rejects(
    ensureGoTool(FORTIO, { toolsDir, env: bin.env, ...quiet }),
    (err) =>
      isHarnessError(err, ErrorCode.ToolMissing) &&
      err.exitCode === 2 &&
      /no go on PATH/.test(err.message) &&
      /npm run tools/.test(err.message),
  );
});

test('auto takes a fitting k6 from PATH, else fortio; k6 is never built', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
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
  assert.ok(
    !(await bin.readCalls()).some((c) => /k6/.test(c) && c.startsWith('go ')),
    'no go command names k6',
  );
});

test('--generator k6 without a fitting k6 is refused with what to do; K6_BINARY is honoured', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
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
