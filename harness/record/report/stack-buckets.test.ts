import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stackBuckets } from './stack-buckets.ts';

test('stacks each bucket in class order, the first class at the bottom', () => {
  const rects = stackBuckets([{ t_s: '4.000', ok: 18, http_503_uf: 1, reset: 1, eof: 0 }], {
    classes: ['http_503_uf', 'reset', 'eof', 'ok'],
    bucketS: 0.01,
  });
  assert.deepEqual(
    rects.map((r) => [r.class, r.y0, r.y1]),
    [
      ['http_503_uf', 0, 1],
      ['reset', 1, 2],
      ['ok', 2, 20],
    ],
  );
  assert.deepEqual(
    rects.map((r) => [r.t_s, r.t_end_s]),
    Array.from({ length: 3 }, () => [4, 4.01]),
  );
});

test('scales to a rate, starts every bucket from zero, and skips classes not asked for', () => {
  const rows = [
    { t_s: 0, http_503_uf: 2, ok: 100 },
    { t_s: 0.1, http_503_uf: 0, reset: 3, ok: 100 },
  ];
  const rects = stackBuckets(rows, { classes: ['http_503_uf', 'reset'], bucketS: 0.1, perBucket: 10 });
  assert.deepEqual(
    rects.map((r) => [r.t_s, r.class, r.value, r.y0, r.y1]),
    [
      [0, 'http_503_uf', 20, 0, 20],
      [0.1, 'reset', 30, 0, 30],
    ],
  );
});

test("each bucket's bar is as tall as its requests, counted from the rows themselves", () => {
  const classes = ['http_503_uf', 'http_503_uc', 'reset', 'ok'];
  const rows: Record<string, number>[] = Array.from({ length: 50 }, (_, i) => ({
    t_s: i / 100,
    ok: 20 - (i % 4),
    http_503_uf: i % 2,
    http_503_uc: i % 3 === 0 ? 1 : 0,
    reset: i % 4 === 3 ? 1 : 0,
  }));
  const rects = stackBuckets(rows, { classes, bucketS: 0.01 });
  for (const row of rows) {
    const tops = rects.filter((r) => r.t_s === row['t_s']).map((r) => r.y1);
    const total = classes.reduce((n, c) => n + (row[c] ?? 0), 0);
    assert.equal(Math.max(...tops), total, `bucket ${String(row['t_s'])}`);
  }
});
