// The report as a person sees it: headless Chromium (the Debian package) opens report.html from a
// run folder, and the test checks the rendered page - the DOM for the plot's marks, the screenshot
// for their colours - so a report that builds but does not draw fails here.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PNG } from 'pngjs';
import { ensureChromium } from '../../tools/index.ts';
import { DRAIN_COLOUR, FAILURE_COLOURS, OK_COLOUR } from '../timeline-spec.ts';
import { writeRunReport } from '../write-run-report.ts';

const CHROMIUM = await ensureChromium((t) => process.stderr.write(t));
const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--hide-scrollbars',
  '--window-size=1000,700',
];

/** 10 s of 100 ms buckets: 200 OK each, and 5 x 503 UF in each bucket from 4.0 to 4.3 s. */
function syntheticRun() {
  const timeline = Array.from({ length: 100 }, (_, i) => {
    const t = i / 10;
    return { t_s: t.toFixed(3), ok: 200, http_503_uf: t >= 4 && t < 4.3 ? 5 : 0, reset: 0 };
  });
  const events = [
    {
      t_s: '3.900',
      kind: 'pod-deleting',
      object: 'default/httpbin-a',
      source: 'api',
      node: 'node-1',
      detail: '',
    },
    {
      t_s: '3.950',
      kind: 'sigterm',
      object: 'default/httpbin-a',
      source: 'kubelet',
      node: 'node-1',
      detail: '',
    },
    {
      t_s: '4.350',
      kind: 'workload-unhealthy-pushed',
      object: 'default/httpbin-a',
      source: 'istiod',
      node: '',
      detail: '',
    },
    {
      t_s: '6.500',
      kind: 'container-exited',
      object: 'default/httpbin-a',
      source: 'kubelet',
      node: 'node-1',
      detail: '',
    },
  ];
  const row = {
    schema_version: 2,
    run_id: 'test-run',
    scenario: 'workload-rollout',
    verdict: 'fail',
    reason: '15 failed > 0',
    requests: 20015,
    ok: 20000,
    http_503: 15,
    started_at: '2026-11-21T00:00:00.000Z',
  };
  const bursts = [
    {
      start_s: '4.000',
      duration_ms: 300,
      failures: 15,
      cause_kind: 'pod-deleting',
      cause_object: 'default/httpbin-a',
      cause_t_s: '3.900',
    },
  ];
  const zoom = Array.from({ length: 170 }, (_, i) => {
    const t = 3 + i / 100;
    return { burst: 1, t_s: t.toFixed(3), ok: 2, http_503_uf: t >= 4 && t < 4.3 ? 1 : 0, reset: 0 };
  });
  const latency = timeline.map((r) => ({ t_s: r.t_s, requests: 200, p50_ms: 2, p99_ms: 9 }));
  return { row, timeline, events, bursts, zoom, latency, byEnd: timeline };
}

function countNear(png: PNG, hex: string, tolerance = 12): number {
  const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (want.every((v, k) => Math.abs((png.data[i + k] ?? 0) - v) <= tolerance)) n += 1;
  }
  return n;
}

/** What a colour at `opacity` over white looks like. */
const overWhite = (hex: string, opacity: number): string =>
  `#${[1, 3, 5]
    .map((i) =>
      Math.round(255 - (255 - parseInt(hex.slice(i, i + 2), 16)) * opacity)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

test('report.html renders in headless Chromium with the timeline marks', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'report-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = await writeRunReport({ runDir: dir, ...syntheticRun(), bucketMs: 100 });
  const url = `file://${path}`;

  const dom = await execa(CHROMIUM, [...CHROME_FLAGS, '--dump-dom', url], { timeout: 60_000 });
  // vega's SVG: one group per mark; the plot has the OK line, the failure rects, the drain shading
  // (rects) and the event rules.
  assert.match(dom.stdout, /<svg[^>]*class="marks"/);
  assert.match(dom.stdout, /mark-line role-mark/);
  assert.match(dom.stdout, /mark-rule role-mark/);
  assert.ok((dom.stdout.match(/mark-rect role-mark/g) ?? []).length >= 3, 'shading + failures rect marks');
  assert.match(dom.stdout, /http_503_uf/); // the legend names the class
  assert.match(dom.stdout, /sigterm/); // the events table
  // The burst's zoom is drawn, and names the cause's events in the picture itself (SVG text).
  assert.match(dom.stdout, /Bursts, zoomed/);
  assert.ok((dom.stdout.match(/<svg/g) ?? []).length >= 2, 'the overview and one zoom');
  assert.match(dom.stdout, /<text[^>]*>sigterm<\/text>/);
  assert.match(dom.stdout, /failures\/s, by completion/);
  assert.match(dom.stdout, /latency, ms/);

  const shot = join(dir, 'shot.png');
  await execa(CHROMIUM, [...CHROME_FLAGS, `--screenshot=${shot}`, url], { timeout: 60_000 });
  const png = PNG.sync.read(readFileSync(shot));
  assert.equal(png.width, 1000);
  const failurePixels = countNear(png, FAILURE_COLOURS['http_503_uf'] ?? '');
  const okPixels = countNear(png, OK_COLOUR, 20);
  const drainPixels = countNear(png, overWhite(DRAIN_COLOUR, 0.5), 8);
  // The legend's swatch alone is ~50 pixels; three 100 ms bars are thousands.
  assert.ok(failurePixels > 1000, `503 UF bars: ${String(failurePixels)} pixels`);
  assert.ok(okPixels > 300, `OK line: ${String(okPixels)} pixels`);
  assert.ok(drainPixels > 5000, `drain window shading: ${String(drainPixels)} pixels`);
});
