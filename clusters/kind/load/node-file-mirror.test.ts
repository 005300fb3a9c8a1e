import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFileMirror, hostPathOfNodeFile } from './node-file-mirror.ts';

test('a growing file mirrored as it grows: nothing before it exists, each poll appends only the new bytes, concurrent polls copy once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mirror-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const from = join(dir, 'node-access.jsonl');
  const to = join(dir, 'access.jsonl');
  const mirror = createFileMirror(from, to);
  await mirror.poll();
  assert.throws(() => readFileSync(to), /ENOENT/);
  writeFileSync(from, '{"a":1}\n{"a":');
  await mirror.poll();
  assert.equal(readFileSync(to, 'utf8'), '{"a":1}\n{"a":');
  appendFileSync(from, '2}\n');
  await Promise.all([mirror.poll(), mirror.poll(), mirror.poll()]);
  assert.equal(readFileSync(to, 'utf8'), '{"a":1}\n{"a":2}\n');
});

test("a node path outside the node's /var volume is not visible from the host (no docker asked)", async () => {
  assert.equal(await hostPathOfNodeFile({ node: 'n', path: '/opt/x', dockerEnv: {} }), undefined);
});
