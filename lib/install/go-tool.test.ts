import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../index.ts';
import { GO_HTTPBIN } from './go-httpbin.ts';
import { ensureGoTool, pinnedToolPath } from './go-tool.ts';
import { createFakeBin, createToolsDir, fakeGoScript, installFake, modLineOf } from './test/fake-bin.ts';

const quiet = { write: () => undefined };

test('go install builds the pinned version into the tools folder; the next call finds it there', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await createToolsDir(t);
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
  const toolsDir = await createToolsDir(t);
  await installFake(
    bin,
    'go',
    fakeGoScript({ modLine: `${GO_HTTPBIN.module}\tv${GO_HTTPBIN.version}\th1:tampered=` }),
  );
  await assert.rejects(
    ensureGoTool(GO_HTTPBIN, { toolsDir, env: bin.env, ...quiet }),
    (err) => isHarnessError(err, ErrorCode.ProvisionFailed) && /h1:tampered=/.test(err.message),
  );
  assert.ok(!existsSync(pinnedToolPath(GO_HTTPBIN, toolsDir)));
  assert.deepEqual(await readdir(toolsDir), [], 'the scratch folder is removed');
});

test('without go the error says what to install (exit 2)', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await createToolsDir(t);
  await assert.rejects(
    ensureGoTool(GO_HTTPBIN, { toolsDir, env: bin.env, ...quiet }),
    (err) =>
      isHarnessError(err, ErrorCode.ToolMissing) &&
      err.exitCode === 2 &&
      /no go on PATH/.test(err.message) &&
      /npm run tools/.test(err.message),
  );
});
