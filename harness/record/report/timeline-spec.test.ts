import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSvg } from './render-svg.ts';
import { buildTimelineSpec } from './timeline-spec.ts';

test('a run with no failures, events or fault still draws, with no failure legend and no label strip', async () => {
  const timeline = Array.from({ length: 20 }, (_, i) => ({ t_s: (i / 10).toFixed(3), ok: 100 }));
  const spec = buildTimelineSpec({ timeline, events: [], byEnd: timeline, bucketMs: 100, title: 'pass' });
  assert.ok('vconcat' in spec);
  assert.equal(spec.vconcat.length, 2, 'OK and failures by start; no lane, no by-completion panel');
  const svg = await renderSvg(spec);
  assert.match(svg, /OK requests\/s/);
  assert.doesNotMatch(svg, /failure class/);
});

test('the fault is named even when no event is', async () => {
  const timeline = Array.from({ length: 20 }, (_, i) => ({ t_s: (i / 10).toFixed(3), ok: 100 }));
  const spec = buildTimelineSpec({
    timeline,
    events: [],
    fault: { t_s: 1, label: 'restart ztunnel' },
    bucketMs: 100,
    title: 't',
  });
  const svg = await renderSvg(spec);
  assert.match(svg, /<text[^>]*>restart ztunnel<\/text>/);
});
