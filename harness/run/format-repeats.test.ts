import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatRepeats } from './format-repeats.ts';

test('repeats print one line each and min / median / max like the ASM table', () => {
  const row = (http503: number, other: number) => ({
    requests: 1000,
    ok: 1000 - http503 - other,
    http_503: http503,
    bursts: 1,
    verdict: 'pass',
  });
  const text = formatRepeats([row(6, 0), row(4, 1), row(5, 0), row(4, 0)]);
  assert.match(text, /^ +1 +1000 +6 +6 +1 +pass$/m);
  assert.equal(text.split('\n').length, 7);
  assert.match(text, /^503s: min 4 \/ median 4\.5 \/ max 6; failed: min 4 \/ median 5 \/ max 6$/m);
});
