import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { appendedLines } from './appended-lines.ts';

test('appended lines: each call reads on from the last, a line cut by a chunk or by the writer waits for its end', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lines-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'log');
  const waiting = appendedLines(path, { missing: 'wait' });
  assert.equal(await waiting.next(), undefined, 'no file yet: nothing, no error');
  await assert.rejects(appendedLines(path).next(), /ENOENT/);
  await appendFile(path, 'one\ntw');
  // A 4-byte buffer: the chunk "one\n" ends a line; "tw" is held back until its newline comes.
  const lines = appendedLines(path, { bufferBytes: 4 });
  assert.deepEqual(await lines.next(), ['one']);
  assert.deepEqual(await lines.next(), []);
  assert.equal(await lines.next(), undefined, 'nothing more for now');
  await appendFile(path, 'o\nthree\n');
  const seen: string[] = [];
  for (let l = await lines.next(); l; l = await lines.next()) seen.push(...l);
  assert.deepEqual(seen, ['two', 'three']);
  assert.deepEqual(
    await waiting.next(),
    ['one', 'two', 'three'],
    'the waiting reader starts at the beginning once the file is there',
  );
  await lines.close();
  await waiting.close();
});
