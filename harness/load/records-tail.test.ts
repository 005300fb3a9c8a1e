import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createRecordsTail, fortioLineOk, k6LineOk } from './records-tail.ts';

test('live counts follow the records file as it grows, including a line split across polls', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tail-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'requests.csv');
  const tail = createRecordsTail(
    path,
    k6LineOk((s) => s === 418),
  );
  t.after(() => tail.close());
  assert.deepEqual(await tail.poll(), { ok: 0, failed: 0 });
  await appendFile(path, '1,2,418,1418,,\n1,2,503,1503,UF,\n1,2,4');
  assert.deepEqual(await tail.poll(), { ok: 1, failed: 1 });
  await appendFile(path, '18,1418,,\n1,2,0,1212,,dial: connection refused\n');
  assert.deepEqual(await tail.poll(), { ok: 2, failed: 2 });
});

test("fortio's access-log lines are counted by fortio's own ok field", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tail-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'access.jsonl');
  const tail = createRecordsTail(path, fortioLineOk);
  t.after(() => tail.close());
  await appendFile(
    path,
    '{"latency":0.0002,"timestamp":1,"thread":0,"iter":0,"ok":true,"details":"418"}\n' +
      '{"latency":0.0003,"timestamp":2,"thread":1,"iter":0,"ok":false,"details":"503"}\n' +
      '{"latency":0.0001,"timestamp":3,"thread":0,"iter":1,"ok":false,"details":"-1"}\n',
  );
  assert.deepEqual(await tail.poll(), { ok: 1, failed: 2 });
});
