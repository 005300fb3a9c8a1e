// `npm run ztunnel-conformance` refuses, before starting anything, what it cannot run: exit 2 naming
// the input and what to do.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'ztunnel-conformance.ts');
const run = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [CLI, ...args], {
    reject: false,
    stdin: 'ignore',
    timeout: 20_000,
    env: { ZTUNNEL_BINARY: '', ZTUNNEL_TEST_ROOT: '', ...env },
  });

test('without a binary: exit 2 saying which binary and test root it needs', async () => {
  const result = await run([]);
  assert.equal(result.exitCode, 2, result.stderr);
  assert.match(result.stderr, /needs ZTUNNEL_BINARY .*--features testing/);
  assert.equal(result.stdout, '', 'nothing probed');
});

test('a binary that is not there, and a bad deadline: exit 2 with the value', async () => {
  const missing = await run(['--ztunnel-binary', '/nonexistent/ztunnel', '--ztunnel-test-root', '/tmp']);
  assert.equal(missing.exitCode, 2);
  assert.match(missing.stderr, /ZTUNNEL_BINARY \/nonexistent\/ztunnel does not exist/);
  const deadline = await run(['--deadline-ms', '5s']);
  assert.equal(deadline.exitCode, 2);
  assert.match(deadline.stderr, /--deadline-ms.*1000 to 60000.*5s/);
});
