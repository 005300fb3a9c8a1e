import { FAILURE_CLASSES } from './colours.ts';
import type { FaultStart } from './fault-start.ts';
import { escapeHtml as escape } from './html-escape.ts';

type Row = Record<string, string | number>;

/** How many bursts the headline explains; the bursts table has them all. */
const HEADLINE_BURSTS = 5;

const count = (n: number): string => n.toLocaleString('en-US');

/** `0.075 %`, `12.5 %`: two significant digits under 1 %. */
function percent(part: number, whole: number): string {
  if (whole <= 0) return '';
  const pct = (part / whole) * 100;
  return ` (${pct === 0 || pct >= 1 ? pct.toFixed(pct === 0 ? 0 : 1) : pct.toPrecision(2)} %)`;
}

/** Failures by class over the timeline (by request start), most first: `15 http_503_uf, 3 reset`. */
function failuresByClass(timeline: readonly Row[]): string {
  const sums = FAILURE_CLASSES.map((c) => ({ c, n: timeline.reduce((s, r) => s + Number(r[c] ?? 0), 0) }));
  return sums
    .filter((s) => s.n > 0)
    .sort((a, b) => b.n - a.n)
    .map((s) => `${count(s.n)} ${s.c}`)
    .join(', ');
}

/** One sentence for a burst: its explanation when the run had one, else its cause. */
export function describeBurst(burst: Row, number: number): string {
  const head = `Burst ${String(number)} at ${String(burst['start_s'])} s, ${String(burst['duration_ms'])} ms, ${String(burst['failures'])} failed`;
  const mechanism = String(burst['mechanism'] ?? '');
  const explanation = String(burst['explanation'] ?? '');
  if (explanation) return `${head}: ${mechanism ? `${mechanism}: ` : ''}${explanation}.`;
  const cause = burst['cause_kind']
    ? `after ${String(burst['cause_kind'])} ${String(burst['cause_object'])} at ${String(burst['cause_t_s'])} s`
    : 'no lifecycle event before it';
  return `${head}: ${mechanism ? `${mechanism}, ` : ''}${cause}.`;
}

/**
 * The report's first lines: the verdict and its reason, requests and failures, the fault, and each
 * burst's mechanism in a sentence (from summary.csv, timeline.csv and bursts.csv).
 */
export function buildHeadline(options: {
  row: Row;
  timeline: readonly Row[];
  bursts: readonly Row[];
  fault?: FaultStart;
}): string {
  const { row, bursts } = options;
  const verdict = String(row['verdict'] ?? '');
  const requests = Number(row['requests'] ?? 0);
  const failed = requests - Number(row['ok'] ?? 0);
  const classes = failuresByClass(options.timeline);
  const longest = Math.max(0, ...bursts.map((b) => Number(b['duration_ms'])));
  const figures = [
    `<b>${count(requests)}</b> requests, <b class="failed">${count(failed)}</b> failed${percent(failed, requests)}${classes ? `: ${escape(classes)}` : ''}.`,
    bursts.length === 0
      ? 'No bursts.'
      : `${count(bursts.length)} burst${bursts.length === 1 ? '' : 's'}, the longest ${count(longest)} ms.`,
    ...(options.fault ? [`Fault: ${escape(options.fault.label)} at ${options.fault.t_s.toFixed(3)} s.`] : []),
  ];
  const shown = bursts.slice(0, HEADLINE_BURSTS).map((b, i) => `<li>${escape(describeBurst(b, i + 1))}</li>`);
  const more = bursts.length - shown.length;
  return [
    '<section class="headline">',
    `<p class="verdict-line"><span class="badge verdict-${escape(verdict)}">${escape(verdict.toUpperCase())}</span> ${escape(String(row['reason'] ?? ''))}</p>`,
    `<p class="figures">${figures.join(' ')}</p>`,
    ...(shown.length ? [`<ol class="burst-lines">${shown.join('')}</ol>`] : []),
    ...(more > 0 ? [`<p>and ${count(more)} more in the bursts table below.</p>`] : []),
    '</section>',
  ].join('\n');
}
