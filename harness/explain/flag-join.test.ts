import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import type { RequestRecord } from '../load/index.ts';
import { createFlagJoin } from './flag-join.ts';

const entry = (startWallMs: number, flags: string[], status = 503): ParsedAccessLog => ({
  startWallMs,
  status,
  flags,
  details: '',
  durationMs: 1,
  upstream: '10.0.0.1:8080',
  attempts: 1,
});
const record = (startWallMs: number, status: number, durationMs = 3): RequestRecord => ({
  startWallMs,
  durationMs,
  status,
  errorCode: 0,
  flag: '',
  error: '',
});

test('each failed record takes the nearest unused gateway line of its status inside its lifetime', () => {
  const join = createFlagJoin([
    entry(1000, ['UF']),
    entry(1001, ['UC']),
    entry(2000, ['URX', 'UF']),
    entry(3000, ['DC'], 0),
  ]);
  const records = [
    record(1000.6, 503),
    record(999.9, 503),
    record(1999, 503, 5),
    record(1500, 503),
    record(1000.2, 418),
  ];
  for (const r of records) join(r);
  assert.deepEqual(
    records.map((r) => r.flag),
    ['UC', 'UF', 'URX,UF', '', ''],
    'the first takes the nearest (UC at 1001), the second what is left; nothing inside 1500-1503; 418 untouched',
  );
});

test('a line is never used twice, and a record outside every line keeps no flag', () => {
  const join = createFlagJoin([entry(100, ['UC'])]);
  const a = record(99, 503);
  const b = record(99, 503);
  join(a);
  join(b);
  assert.deepEqual([a.flag, b.flag], ['UC', '']);
});
