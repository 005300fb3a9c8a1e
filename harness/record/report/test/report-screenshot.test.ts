// The report as a person sees it: headless Chromium (the Debian package) opens report.html from a
// run folder, and the tests check the rendered page - the DOM for the headline, the plots' marks and
// legends, a probe script for the laid-out width, the screenshot for the colours - so a report that
// builds but does not draw, or hides what it draws, fails here.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DRAIN_COLOUR, FAILURE_COLOURS, FAULT_COLOUR, OK_BAR_COLOUR, OK_COLOUR } from '../colours.ts';
import { writeRunReport } from '../write-run-report.ts';
import { dumpDom, measureLayout, screenshot, WINDOW_WIDTH_PX } from './chromium-page.ts';
import { countNear, countStripes, overWhite } from './png-colours.ts';
import { FAILED_UC, FAILED_UF, POD, syntheticRun } from './synthetic-run.ts';

/** Each legend's title and the values it lists, from vega's aria-labels. */
function legendsOf(dom: string): { title: string; values: string[] }[] {
  const legends = dom.matchAll(
    /aria-label="Symbol legend titled '([^']+)' for [^"]*? with \d+ values?: ([^"]+)"/g,
  );
  return [...legends].map((m) => ({ title: m[1] ?? '', values: (m[2] ?? '').split(', ') }));
}

/** The SVG of one of the report's plots (`timeline`, `zoom-1`, ...), on a page of its own. */
function plotPage(html: string, id: string): string {
  const m = new RegExp(`<div class="plot" id="${id}">(<svg[\\s\\S]*?</svg>)</div>`).exec(html);
  assert.ok(m?.[1], `report.html has no plot #${id}`);
  return `<!doctype html><html><body style="margin:0">${m[1]}</body></html>`;
}

describe('report.html in headless Chromium', () => {
  let dir = '';
  let path = '';
  let html = '';
  let dom = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'report-'));
    path = await writeRunReport({ runDir: dir, ...syntheticRun(), bucketMs: 100 });
    html = await readFile(path, 'utf8');
    dom = await dumpDom(path);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('draws the timeline marks and the burst zooms', async () => {
    // vega's SVG: one group per mark; the plot has the OK line, the failure rects, the drain shading
    // (rects) and the event rules.
    assert.match(dom, /<svg[^>]*class="marks"/);
    assert.match(dom, /mark-line role-mark/);
    assert.match(dom, /mark-rule role-mark/);
    assert.ok((dom.match(/mark-rect role-mark/g) ?? []).length >= 3, 'shading + failures rect marks');
    assert.match(dom, /<td>sigterm<\/td>/); // the events table
    assert.match(dom, /Bursts, zoomed/);
    assert.equal((dom.match(/<svg/g) ?? []).length, 3, 'the overview and one zoom per burst');
    assert.match(dom, /<tspan>failures\/s,<\/tspan><tspan[^>]*>by completion<\/tspan>/);
    assert.match(dom, /latency, ms/);

    // Tall enough for the headline, the whole timeline and the zooms.
    const png = await screenshot(path, join(dir, 'shot.png'), 2400);
    assert.equal(png.width, WINDOW_WIDTH_PX);
    const failurePixels = countNear(png, FAILURE_COLOURS['http_503_uf'] ?? '');
    const okPixels = countNear(png, OK_COLOUR, 20);
    const drainPixels = countNear(png, overWhite(DRAIN_COLOUR, 0.5), 8);
    // The legend's swatch alone is ~100 pixels; three 100 ms bars are thousands.
    assert.ok(failurePixels > 1000, `503 UF bars: ${String(failurePixels)} pixels`);
    assert.ok(okPixels > 300, `OK line: ${String(okPixels)} pixels`);
    assert.ok(drainPixels > 5000, `drain window shading: ${String(drainPixels)} pixels`);
  });

  test('opens with a headline: requests, failed, the verdict and why, each burst in a sentence', () => {
    const headline = /<section class="headline">([\s\S]*?)<\/section>/.exec(dom)?.[1] ?? '';
    const text = headline.replace(/<[^>]+>/g, '');
    assert.match(text, /FAIL 18 failed &gt; 0 \(--max-failed\)/);
    assert.match(text, /20,018 requests, 18 failed \(0\.090 %\): 15 http_503_uf, 3 http_503_uc\./);
    assert.match(text, /Fault: restart httpbin at 3\.800 s\./);
    assert.match(
      text,
      new RegExp(
        `Burst 1 at 4\\.000 s, 300 ms, ${String(FAILED_UF)} failed: pod-termination: ${POD} was terminating`,
      ),
    );
    assert.match(
      text,
      new RegExp(`Burst 2 at 7\\.000 s, 40 ms, ${String(FAILED_UC)} failed: keep-alive-race: `),
    );
    assert.ok(dom.indexOf('class="headline"') < dom.indexOf('<svg'), 'the headline comes before the plots');
  });

  test('names the fault and the drains on the timeline, and draws the fault in its colour', async () => {
    const timeline = /<div class="plot" id="timeline">([\s\S]*?)<\/svg>/.exec(dom)?.[1] ?? '';
    const labels = [
      ...timeline.matchAll(/<text[^>]*aria-roledescription="text mark"[^>]*>([^<]*)<\/text>/g),
    ].map((m) => m[1]);
    assert.deepEqual(labels.sort(), [
      'drain-deadline ztunnel-abcde',
      'restart httpbin',
      'sigterm httpbin-5d8f7c9b4-x7k2p',
    ]);
    // The zoom names its cause's events by kind.
    assert.match(dom, /<text[^>]*>sigterm<\/text>/);
    assert.match(dom, /<text[^>]*>del-workload<\/text>/);
    await writeFile(join(dir, 'timeline.html'), plotPage(html, 'timeline'));
    const shot = await screenshot(join(dir, 'timeline.html'), join(dir, 'timeline.png'), 1300);
    // A 2 px rule through six panels ~800 px high (antialiased at its edges); its label is ~100.
    const faultPixels = countNear(shot, FAULT_COLOUR, 24);
    assert.ok(faultPixels > 600, `the fault's rule: ${String(faultPixels)} pixels`);
  });

  test('lists in each legend only the classes the run had', () => {
    const legends = legendsOf(dom);
    const byTitle = (title: string) => legends.filter((l) => l.title === title).map((l) => l.values);
    assert.deepEqual(byTitle('failure class'), [
      ['http_503_uf', 'http_503_uc'],
      ['http_503_uf', 'http_503_uc'],
    ]);
    assert.deepEqual(byTitle('outcome'), [
      ['ok', 'http_503_uf'],
      ['ok', 'http_503_uc'],
    ]);
    assert.deepEqual(byTitle('component'), [['generator', 'gateway', 'ztunnel']]);
  });

  test('draws every failure of a zoomed burst, on top of nothing', async () => {
    await writeFile(join(dir, 'zoom-1.html'), plotPage(html, 'zoom-1'));
    const png = await screenshot(join(dir, 'zoom-1.html'), join(dir, 'zoom-1.png'), 400);
    const red = FAILURE_COLOURS['http_503_uf'] ?? '';
    // 15 buckets with one failure each, a bucket apart: 15 stripes, and the legend's swatch.
    const stripes = countStripes(png, red, { fromX: 0, toX: png.width });
    assert.ok(stripes >= FAILED_UF, `stripes of 503 UF: ${String(stripes)}, want >= ${String(FAILED_UF)}`);
    assert.ok(countNear(png, red) > 300, `503 UF pixels: ${String(countNear(png, red))}`);
    assert.ok(countNear(png, OK_BAR_COLOUR, 6) > 20_000, 'the OK bars above them');
  });

  test('fits a 1000 px window: no sideways page scroll, every table inside its box', async () => {
    const layout = await measureLayout(html, join(dir, 'probe.html'));
    assert.equal(layout.innerWidthPx, WINDOW_WIDTH_PX);
    assert.ok(
      layout.scrollWidthPx <= layout.innerWidthPx,
      `page ${String(layout.scrollWidthPx)} px wide in a ${String(layout.innerWidthPx)} px window`,
    );
    assert.equal(layout.tableOverflowPx, 0, 'a table wider than the page');
  });
});
