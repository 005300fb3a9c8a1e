type Row = Record<string, string | number>;

const escape = (text: string | number): string =>
  String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/** A two-column table of the summary row's columns (name, value), in the CSV's order. */
function keyValueTable(row: Row, names: readonly string[]): string {
  const cells = names
    .filter((n) => n in row)
    .map((n) => `<tr><th>${escape(n)}</th><td>${escape(row[n] ?? '')}</td></tr>`)
    .join('');
  return `<table class="kv">${cells}</table>`;
}

export function htmlTable(rows: Row[], columns?: string[]): string {
  const cols = columns ?? Object.keys(rows[0] ?? {});
  const head = cols.map((c) => `<th>${escape(c)}</th>`).join('');
  const body = rows
    .map((r) => `<tr>${cols.map((c) => `<td>${escape(r[c] ?? '')}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

export const PAGE_STYLE = `body{font-family:DejaVu Sans,Arial,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}
table.kv th{background:#f6f6f6;font-weight:normal}.verdict-pass{color:#2a7d2a}.verdict-fail{color:#b22}
.verdict-aborted{color:#a60}.plot{margin:12px 0}`;

export function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title><style>${PAGE_STYLE}</style></head>\n<body>\n${body}\n</body></html>\n`;
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

/**
 * One run's report: self-contained (the plot is inline SVG, no script, no network), readable from
 * the run folder on any machine.
 */
export function buildRunReport(options: {
  row: Row;
  svg: string;
  /** One SVG per burst: its zoom at 10 ms. */
  zooms?: string[];
  bursts: Row[];
  events: Row[];
}): string {
  const { row } = options;
  const verdict = String(row['verdict']);
  const rest = Object.keys(row).filter((k) => !(HEADLINE as readonly string[]).includes(k));
  const body = [
    `<h1>${escape(String(row['scenario']))} - <span class="verdict-${escape(verdict)}">${escape(verdict)}</span></h1>`,
    `<p>run ${escape(String(row['run_id']))}, started ${escape(String(row['started_at']))}; ${escape(String(row['reason']))}</p>`,
    `<div class="plot">${options.svg}</div>`,
    "<p>Shaded: a pod draining (deletion or SIGTERM to its containers' exit). Dashed rules: lifecycle events, named beside them (all of them are listed below). Panels: OK requests/s; failures/s by request start; failures/s by completion (when the client saw them); latency p50 and p99 per bucket; CPU per component (each pod's processes summed by kind, k6, the harness), sampled every second from /proc.</p>",
    '<h2>Totals</h2>',
    keyValueTable(row, HEADLINE),
    '<h2>Bursts</h2>',
    options.bursts.length ? htmlTable(options.bursts) : '<p>none</p>',
    ...(options.zooms?.length
      ? [
          '<h2>Bursts, zoomed (10 ms buckets by request start)</h2>',
          ...options.zooms.map((z) => `<div class="plot">${z}</div>`),
        ]
      : []),
    '<h2>Lifecycle events</h2>',
    htmlTable(options.events),
    '<h2>Parameters, timing model, versions</h2>',
    keyValueTable(row, rest),
  ].join('\n');
  return page(`${String(row['scenario'])} ${String(row['run_id'])}`, body);
}
