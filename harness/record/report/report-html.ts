import { pivotEnvoyCounters } from './envoy-counter-table.ts';
import type { FaultStart } from './fault-start.ts';
import { buildHeadline } from './headline.ts';
import { escapeHtml as escape } from './html-escape.ts';

type Row = Record<string, string | number>;

/** A column name that may break after its underscores (`gateway_<wbr>reaction_<wbr>ms`). */
const header = (name: string): string => escape(name).replace(/_/g, '_<wbr>');

/**
 * A cell; one with a long value (a timestamp, a pod name, a log line) may break anywhere, so a wide
 * table gives way there and not in its short numbers.
 */
const cell = (value: string | number): string =>
  String(value).length > LONG_CELL_CHARS
    ? `<td class="long">${escape(value)}</td>`
    : `<td>${escape(value)}</td>`;
const LONG_CELL_CHARS = 20;

/** Every table sits in a box that scrolls sideways on its own if it is still too wide. */
const wrap = (table: string): string => `<div class="table-wrap">${table}</div>`;

/** A two-column table of the summary row's columns (name, value), in the CSV's order. */
function keyValueTable(row: Row, names: readonly string[]): string {
  const cells = names
    .filter((n) => n in row)
    .map((n) => `<tr><th>${escape(n)}</th>${cell(row[n] ?? '')}</tr>`)
    .join('');
  return wrap(`<table class="kv">${cells}</table>`);
}

/**
 * `rows` as a table; the `notes` columns (long prose: an explanation, a timeline) go on a full-width
 * line under each row rather than in columns of their own. `omitEmpty`: leave out the columns that
 * are empty in every row (the CSV has them).
 */
export function htmlTable(
  rows: Row[],
  columns?: string[],
  options: { notes?: readonly string[]; omitEmpty?: boolean } = {},
): string {
  const notes = options.notes ?? [];
  const cols = (columns ?? Object.keys(rows[0] ?? {}))
    .filter((c) => !notes.includes(c))
    .filter((c) => options.omitEmpty !== true || rows.some((r) => r[c] !== undefined && r[c] !== ''));
  const head = cols.map((c) => `<th>${header(c)}</th>`).join('');
  const body = rows
    .map((r) => {
      const cells = `<tr>${cols.map((c) => cell(r[c] ?? '')).join('')}</tr>`;
      const lines = notes
        .filter((n) => r[n] !== undefined && r[n] !== '')
        .map(
          (n) =>
            `<tr class="note"><td colspan="${String(cols.length)}">${header(n)}: ${escape(r[n] ?? '')}</td></tr>`,
        );
      return cells + lines.join('');
    })
    .join('\n');
  return wrap(`<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`);
}

export const PAGE_STYLE = `body{font-family:DejaVu Sans,Arial,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;font-size:12px;max-width:100%}
td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}td.long{overflow-wrap:anywhere}
table.kv th{background:#f6f6f6;font-weight:normal}tr.note td{color:#555;border-top:none}
.verdict-pass{color:#2a7d2a}.verdict-fail{color:#b22}.verdict-aborted{color:#a60}
.plot{margin:12px 0}.plot svg{max-width:100%;height:auto}
.headline{border:1px solid #ddd;border-left:6px solid #888;padding:8px 14px;margin:12px 0 20px;font-size:15px}
.headline p{margin:6px 0}.headline ol{margin:6px 0;padding-left:22px;font-size:14px}
.badge{display:inline-block;padding:1px 8px;border-radius:3px;color:#fff;font-weight:bold;background:#888}
.badge.verdict-pass{background:#2a7d2a}.badge.verdict-fail{background:#b22}.badge.verdict-aborted{background:#a60}
b.failed{color:#b22}`;

const DEADLINE_CAPTION =
  "Each drain deadline: the requests lost against the mechanism. If the old ztunnel resets its connections, every request past the gateway on them is lost: rate x (T_past + L); if it closes them with a FIN, only those still inside ztunnel (its own in_flight count) plus rate x L. The band runs from the first prediction's 2.5 % Poisson quantile to the second's 97.5 %. T_past: Envoy's first byte upstream to the response's first byte (its access log, µs); L: the gateway's mean delay in seeing a closed connection close; CPU wait: of the path's runnable time in the second after the deadline, the share spent waiting for a CPU (schedstat) - what this machine adds.";

/** E1's deadlines accounted for: the table and one plot each. */
function deadlineSection(
  d: { rows: Row[]; plots: { deadline: number; svg: string }[] } | undefined,
): string[] {
  if (!d?.rows.length) return [];
  return [
    '<h2>Drain deadlines, accounted for</h2>',
    `<p>${escape(DEADLINE_CAPTION)}</p>`,
    htmlTable(d.rows),
    ...d.plots.map((p) => `<div class="plot" id="deadline-${String(p.deadline)}">${p.svg}</div>`),
  ];
}

export function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title><style>${PAGE_STYLE}</style></head>\n<body>\n${body}\n</body></html>\n`;
}

const HEADLINE = [
  'scenario',
  'backend',
  'mesh',
  'grace_s',
  'qps',
  'connections',
  'duration_s',
  'requests',
  'ok',
  'http_503',
  'http_503_uf',
  'http_503_uc',
  'http_503_urx',
  'http_503_uh',
  'other_5xx',
  'refused',
  'reset',
  'eof',
  'timeout',
  'other',
  'p50_ms',
  'p99_ms',
  'bursts',
  'max_burst_ms',
  'verdict',
  'reason',
] as const;

const CAPTION =
  "Solid purple rule: the fault (the restart, rollout or scale). Dashed rules: lifecycle events; the strip above the plot names the fault, SIGTERMs, SIGKILLs and drain deadlines (every event is in the table below). Shaded: a pod draining (deletion or SIGTERM to its containers' exit). Panels: OK requests/s; failures/s by request start; failures/s by completion (when the client saw them); latency p50 and p99 per bucket; CPU per component (each pod's processes summed by kind, the load generator, the harness), sampled every second from /proc.";

/** gateway-failures.csv and envoy-counters.csv: what Envoy logged and counted about the failures. */
export interface EnvoyTables {
  gatewayFailures: Row[];
  envoyCounters: Row[];
}

/** The gateway's failures by Envoy's details and its cluster counters; nothing for runs without them. */
function envoySection(envoy: EnvoyTables | undefined): string[] {
  if (!envoy || (envoy.gatewayFailures.length === 0 && envoy.envoyCounters.length === 0)) return [];
  const columns = ['failures', 'status', 'flags', 'meaning', 'tunnel_reason', 'details'];
  return [
    "<h2>Gateway failures in Envoy's words</h2>",
    envoy.gatewayFailures.length
      ? htmlTable(envoy.gatewayFailures, columns, { omitEmpty: true })
      : '<p>none</p>',
    ...(envoy.envoyCounters.length
      ? [
          "<p>Envoy's cluster counters: the change between the gateway's first and last scrape (every scrape is in metrics.om).</p>",
          htmlTable(pivotEnvoyCounters(envoy.envoyCounters)),
        ]
      : []),
  ];
}

/**
 * One run's report: self-contained (the plot is inline SVG, no script, no network), readable from
 * the run folder on any machine. The headline first, then the plots, then the tables.
 */
export function buildRunReport(options: {
  row: Row;
  svg: string;
  /** One SVG per burst (numbered from 1) that has zoom rows: its zoom at 10 ms. */
  zooms?: { burst: number; svg: string }[];
  bursts: Row[];
  events: Row[];
  /** timeline.csv's rows: the headline's failures by class. */
  timeline?: Row[];
  fault?: FaultStart;
  envoy?: EnvoyTables;
  /** E1: each drain deadline accounted for, and its T_past / run-queue plot. */
  deadlines?: { rows: Row[]; plots: { deadline: number; svg: string }[] };
}): string {
  const { row } = options;
  const rest = Object.keys(row).filter((k) => !(HEADLINE as readonly string[]).includes(k));
  const body = [
    `<h1>${escape(String(row['scenario']))}</h1>`,
    `<p>run ${escape(String(row['run_id']))}, started ${escape(String(row['started_at']))}</p>`,
    buildHeadline({
      row,
      timeline: options.timeline ?? [],
      bursts: options.bursts,
      ...(options.fault ? { fault: options.fault } : {}),
    }),
    `<div class="plot" id="timeline">${options.svg}</div>`,
    `<p>${CAPTION}</p>`,
    '<h2>Totals</h2>',
    keyValueTable(row, HEADLINE),
    '<h2>Bursts</h2>',
    options.bursts.length
      ? htmlTable(options.bursts, undefined, { notes: ['cause_timeline', 'explanation'], omitEmpty: true })
      : '<p>none</p>',
    ...envoySection(options.envoy),
    ...deadlineSection(options.deadlines),
    ...(options.zooms?.length
      ? [
          '<h2>Bursts, zoomed (10 ms buckets by request start)</h2>',
          ...options.zooms.map((z) => `<div class="plot" id="zoom-${String(z.burst)}">${z.svg}</div>`),
        ]
      : []),
    '<h2>Lifecycle events</h2>',
    htmlTable(options.events, undefined, { notes: ['detail'] }),
    '<h2>Parameters, timing model, versions</h2>',
    keyValueTable(row, rest),
  ].join('\n');
  return page(`${String(row['scenario'])} ${String(row['run_id'])}`, body);
}
