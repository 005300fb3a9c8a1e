// Headless Chromium (the Debian package) as the report's reader: the DOM after load, a probe of the
// laid-out page, and screenshots.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { PNG } from 'pngjs';
import { ensureChromium } from '../../../provision/index.ts';

const CHROMIUM = await ensureChromium((t) => process.stderr.write(t));
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--hide-scrollbars',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
export const WINDOW_WIDTH_PX = 1000;
const windowSize = (heightPx: number): string =>
  `--window-size=${String(WINDOW_WIDTH_PX)},${String(heightPx)}`;

/** The page's DOM after load, as Chromium serializes it. */
export async function dumpDom(path: string): Promise<string> {
  const r = await execa(CHROMIUM, [...FLAGS, windowSize(700), '--dump-dom', `file://${path}`], {
    timeout: 60_000,
  });
  return r.stdout;
}

/** The page as a PNG of the window (width WINDOW_WIDTH_PX, `heightPx` high). */
export async function screenshot(path: string, pngPath: string, heightPx = 700): Promise<PNG> {
  await execa(CHROMIUM, [...FLAGS, windowSize(heightPx), `--screenshot=${pngPath}`, `file://${path}`], {
    timeout: 60_000,
  });
  return PNG.sync.read(readFileSync(pngPath));
}

/** What layout measured, written by the probe script into data- attributes of <body>. */
export interface Layout {
  scrollWidthPx: number;
  innerWidthPx: number;
  /** How far the widest table sticks out of its own box (0: every table fits). */
  tableOverflowPx: number;
}

const PROBE = `<script>
const wraps = [...document.querySelectorAll('.table-wrap')];
document.body.dataset.scrollWidth = String(document.documentElement.scrollWidth);
document.body.dataset.innerWidth = String(window.innerWidth);
document.body.dataset.tableOverflow = String(Math.max(0, ...wraps.map((w) => w.scrollWidth - w.clientWidth)));
</script>`;

/** Lays `html` out in a window WINDOW_WIDTH_PX wide (a copy at `probePath` with a script added). */
export async function measureLayout(html: string, probePath: string): Promise<Layout> {
  await writeFile(probePath, html.replace('</body>', `${PROBE}</body>`));
  const dom = await dumpDom(probePath);
  const attr = (name: string): number => {
    const m = new RegExp(`data-${name}="(\\d+)"`).exec(dom);
    if (!m) throw new Error(`the probe wrote no data-${name} (did the script run?)`);
    return Number(m[1]);
  };
  return {
    scrollWidthPx: attr('scroll-width'),
    innerWidthPx: attr('inner-width'),
    tableOverflowPx: attr('table-overflow'),
  };
}
