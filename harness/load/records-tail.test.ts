import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createRecordsTail } from './records-tail.ts';

test('live counts follow the records file as it grows, including a line split across polls', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tail-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'requests.csv');
  const tail = createRecordsTail(path, (s) => s === 418);
  t.after(() => tail.close());
  assert.deepEqual(await tail.poll(), { ok: 0, failed: 0 });
  await appendFile(path, '1,2,418,1418,,\n1,2,503,1503,UF,\n1,2,4');
  assert.deepEqual(await tail.poll(), { ok: 1, failed: 1 });
  await appendFile(path, '18,1418,,\n1,2,0,1212,,dial: connection refused\n');
  assert.deepEqual(await tail.poll(), { ok: 2, failed: 2 });
});
