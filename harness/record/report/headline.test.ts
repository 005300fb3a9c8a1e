import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHeadline, describeBurst } from './headline.ts';

const text = (html: string): string => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

test('a passing run: its figures, no bursts, no fault', () => {
  const html = buildHeadline({
    row: { verdict: 'pass', reason: '0 failed <= 0', requests: 50_000, ok: 50_000 },
    timeline: [{ t_s: 0, ok: 50_000 }],
    bursts: [],
  });
  assert.match(html, /class="badge verdict-pass">PASS</);
  assert.equal(text(html).trim(), 'PASS 0 failed &lt;= 0 50,000 requests, 0 failed (0 %). No bursts.');
});

test('failures by class come from the timeline, most first', () => {
  const html = buildHeadline({
    row: { verdict: 'fail', reason: 'r', requests: 1000, ok: 990 },
    timeline: [
      { t_s: 0, ok: 500, reset: 2, http_503_uf: 1 },
      { t_s: 1, ok: 490, reset: 5, eof: 2 },
    ],
    bursts: [],
  });
  assert.match(text(html), /1,000 requests, 10 failed \(1\.0 %\): 7 reset, 2 eof, 1 http_503_uf\./);
});

test('the first five bursts get a sentence each, the rest a count', () => {
  const bursts = Array.from({ length: 7 }, (_, i) => ({
    start_s: `${String(i)}.000`,
    duration_ms: 10,
    failures: 1,
    mechanism: 'drain-deadline',
    explanation: `drop ${String(i)}`,
  }));
  const html = buildHeadline({
    row: { verdict: 'fail', reason: 'r', requests: 7, ok: 0 },
    timeline: [],
    bursts,
  });
  assert.equal((html.match(/<li>/g) ?? []).length, 5);
  assert.match(text(html), /7 bursts, the longest 10 ms\./);
  assert.match(text(html), /and 2 more in the bursts table below\./);
});

test('a burst without an explanation is told by its cause, or the lack of one', () => {
  const burst = {
    start_s: '4.000',
    duration_ms: 300,
    failures: 15,
    cause_kind: 'sigterm',
    cause_object: 'default/a',
    cause_t_s: '3.950',
  };
  assert.equal(
    describeBurst(burst, 1),
    'Burst 1 at 4.000 s, 300 ms, 15 failed: after sigterm default/a at 3.950 s.',
  );
  assert.equal(
    describeBurst({ ...burst, cause_kind: '', mechanism: 'unattributed' }, 2),
    'Burst 2 at 4.000 s, 300 ms, 15 failed: unattributed, no lifecycle event before it.',
  );
});
