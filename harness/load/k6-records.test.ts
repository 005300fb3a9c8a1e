import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { formatFortioSummary } from './fortio-summary.ts';
import type { RequestRecord } from './k6-records.ts';
import { readK6Records } from './k6-records.ts';
import { addRecord, createLoadCounts } from './load-counts.ts';

async function recordsFile(t: { after: (fn: () => Promise<void>) => void }, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'records-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'requests.csv');
  await writeFile(path, text);
  return path;
}

test('records are read in order with flag and error text', async (t) => {
  const path = await recordsFile(
    t,
    '1795288656063,12,418,1418,,\n1795288656070,0,0,1212,,dial tcp 127.0.0.1:9: connect: connection refused\n' +
      '1795288656080,5,503,1503,UF,\n',
  );
  const seen: RequestRecord[] = [];
  const n = await readK6Records(path, (r) => seen.push(r));
  assert.equal(n, 3);
  assert.deepEqual(seen[1], {
    startWallMs: 1795288656070,
    durationMs: 0,
    status: 0,
    errorCode: 1212,
    flag: '',
    error: 'dial tcp 127.0.0.1:9: connect: connection refused',
  });
  assert.equal(seen[2]?.flag, 'UF');
});

test('a line that is not a record names the file and line', async (t) => {
  const path = await recordsFile(t, '1795288656063,12,418,1418,,\nWARN something else,,,,,\n');
  const err = await readK6Records(path, () => undefined).catch((e: unknown) => e);
  assert.ok(isHarnessError(err, ErrorCode.LoadFailed));
  assert.match(err.message, /requests\.csv:2 is not a k6 request record/);
});

test('fortio-style summary: codes with percentages, k6 errors, calls, avg and qps', () => {
  const counts = createLoadCounts();
  const base = { flag: '', error: '' };
  for (let i = 0; i < 98; i++)
    addRecord(counts, { ...base, startWallMs: 1000 + i * 10, durationMs: 10, status: 418, errorCode: 1418 });
  addRecord(counts, { ...base, startWallMs: 1500, durationMs: 20, status: 503, errorCode: 1503 });
  addRecord(counts, { ...base, startWallMs: 1600, durationMs: 0, status: 0, errorCode: 1212 });
  assert.equal(
    formatFortioSummary(counts),
    [
      'Code -1 : 1 (1.0 %)',
      'Code 418 : 98 (98.0 %)',
      'Code 503 : 1 (1.0 %)',
      '  k6 error 1212 (connection refused) : 1 (1.0 %)',
      // From the first start (1000) to the last end (1970 + 10 = 1980): 100 calls in 0.98 s.
      'All done 100 calls 10.000 ms avg, 102.0 qps',
    ].join('\n'),
  );
});
