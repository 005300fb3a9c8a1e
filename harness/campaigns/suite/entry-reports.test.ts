import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spread } from './entry-reports.ts';

test('spread: min / median / max, the median of two values without binary-fraction noise', () => {
  const rows = [{ x: '14.39' }, { x: '15.6' }];
  assert.equal(
    spread(rows, (r) => Number(r['x'])),
    '14.39 / 14.995 / 15.6',
  );
  assert.equal(
    spread([{ x: '3' }], (r) => Number(r['x'])),
    '3',
  );
});
