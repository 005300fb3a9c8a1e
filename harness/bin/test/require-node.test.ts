import assert from 'node:assert/strict';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { findOnPath } from '../../../lib/install/index.ts';
import { PROJECT_ROOT } from '../../paths.ts';

const GUARD = join(PROJECT_ROOT, 'harness', 'bin', 'require-node.mjs');

test('npm scripts run on Node 24 (the node package), whatever the system Node is', () => {
  assert.ok(Number(process.versions.node.split('.')[0]) >= 24, `tests run on Node ${process.versions.node}`);
});

test('the guard passes on Node 24 and stops an older Node with exit 2 and what to do', async (t) => {
  assert.equal((await execa(process.execPath, [GUARD], { reject: false })).exitCode, 0);

  // The system's own node: PATH without the node_modules/.bin that npm put first.
  const systemPath = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter);
  const systemNode = await findOnPath('node', { PATH: systemPath });
  const version = systemNode ? (await execa(systemNode, ['--version'])).stdout : '';
  if (!systemNode || Number(/^v(\d+)/.exec(version)?.[1] ?? 0) >= 24) {
    t.skip(`no system Node older than 24 to try (found ${systemNode ?? 'none'} ${version})`);
    return;
  }
  const result = await execa(systemNode, [GUARD], { reject: false });
  assert.equal(result.exitCode, 2);
  assert.match(
    result.stderr,
    new RegExp(`needs Node 24 or newer, but this script runs on Node ${version.slice(1)}`),
  );
  assert.match(result.stderr, /npm run <script>|npm ci/);
});
